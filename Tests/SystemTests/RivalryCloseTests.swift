import Contracts
import Foundation
import HTTPClient
import HTTPServer
import IdentifyCore
import Kafka
import Postgres
import Runtime
import Scheduling
import Synchronization
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// The weekly close through two Identify replicas, each running the scheduler on a clock started just before
    /// this week's Saturday 12:00 UTC: the slot is claimed once, each round closes once from market data (a loopback
    /// Yahoo), a right pick pays its XP once, and one push request per round reaches the push topic. Run again (the
    /// slot row removed, so a scheduler publishes it a second time), the close changes nothing.
    @Suite struct RivalryCloseTests {
        static let job = "identify.rivalries.close"

        /// Daily closes: symbols starting `UQ` gain 2% a session, every other symbol stays flat.
        static func yahoo() throws -> FakeUpstream {
            try FakeUpstream { request in
                let symbol = request.path.split(separator: "/").last.map(String.init) ?? "X"
                let rising = symbol.hasPrefix("UQ")
                let closes = (0..<22).map { String(rising ? 100 * pow(1.02, Double($0)) : 100) }
                let stamps = (0..<22).map { String(1_780_000_000 + $0 * 86_400) }
                let body = """
                    {"chart":{"result":[{"meta":{"symbol":"\(symbol)","currency":"USD","regularMarketPrice":100,\
                    "chartPreviousClose":100,"regularMarketTime":1785000000},"timestamp":[\(stamps.joined(separator: ","))],\
                    "indicators":{"quote":[{"close":[\(closes.joined(separator: ","))]}]}}]}}
                    """
                return .json(200, raw: Array(body.utf8))
            }
        }

        /// Push requests on the push topic naming `rivalryIds`, counted by id.
        final class PushCounter: Sendable {
            /// Rivalry ids to count, and the counts.
            final class Tally: Sendable {
                let ids = Mutex<[String]>([])
                let counts = Mutex<[String: Int]>([:])
            }
            let tally = Tally()
            let consumer: KafkaGroupConsumer
            let task: Task<Void, any Error>

            init() throws {
                consumer = try KafkaGroupConsumer.make(
                    configuration: KafkaConfiguration.fromEnvironment(Environment()),
                    groupId: "test-rivalry-pushes-\(UInt32.random(in: 0...UInt32.max))", topics: [Topics.pushRequests],
                    logger: Logger(label: "t", level: .error))
                let tally = self.tally
                consumer.setHandler(maxInFlight: 16) { message in
                    let text = String(decoding: message.value, as: UTF8.self)
                    for id in tally.ids.withLock({ $0 }) where text.contains(id) {
                        tally.counts.withLock { $0[id, default: 0] += 1 }
                    }
                }
                let consumer = self.consumer
                task = Task { try await consumer.run() }
            }

            func stop() async {
                await consumer.shutdown()
                _ = try? await task.value
            }
        }

        static func rivalries(_ gateway: GatewayProcess, _ token: String) async throws -> [Rivalry] {
            let response = try await SystemClient.send(
                gateway, "GET", "/v1/rivalries", headers: [("Authorization", "Bearer \(token)")])
            return try JSONDecoder().decode(RivalriesResponse.self, from: Data(response.body)).rivalries
        }

        static func xp(_ gateway: GatewayProcess, _ token: String) async throws -> Int {
            let response = try await SystemClient.send(
                gateway, "GET", "/v1/progress", headers: [("Authorization", "Bearer \(token)")])
            return ((SystemClient.json(response)["progress"] as? [String: Any])?["xp"] as? Int) ?? -1
        }

        @Test func oneCloseOneAwardOnePushAcrossTwoReplicas() async throws {
            let now = Date()
            let monday = RivalryTests.monday(now)
            let saturdayNoon = try #require(Timestamp.parse("\(monday)T12:00:00.000Z")).addingTimeInterval(5 * 86_400)
            let rising = "UQ" + String((0..<3).map { _ in "ABCDEFGHJKLMNPRSTVWXYZ".randomElement() ?? "A" })
            let flat = "FQ" + String((0..<3).map { _ in "ABCDEFGHJKLMNPRSTVWXYZ".randomElement() ?? "A" })
            let pushes = try PushCounter()
            let yahoo = try Self.yahoo()
            let db = try await PostgresPool.make(
                url: try TestEnvironment.require("POSTGRES_URL"), size: 1, logger: Logger(label: "t", sink: .memory()))
            let gateway = try await GatewayProcess.start(instance: "test-rivalclose-\(UInt16.random(in: 0...9999))")
            var replicas: [ServiceProcess] = []
            defer {
                replicas.forEach { $0.kill() }
                gateway.process.kill()
            }
            // One replica without the scheduler serves the set-up; it stays as a consumer of the close command.
            replicas.append(
                try await ServiceProcess.start(
                    "Identify", extra: ["MARKET_DATA_PRIMARY": "yahoo", "YAHOO_BASE_URL": yahoo.baseURL]))
            let (right, _) = try await SystemClient.signIn(gateway)
            let (wrong, _) = try await SystemClient.signIn(gateway)
            try await SystemClient.waitForIdentify(gateway, auth: [("Authorization", "Bearer \(right)")])
            for (token, pick) in [(right, "ticker"), (wrong, "rival")] {
                let created = try await SystemClient.send(
                    gateway, "POST", "/v1/rivalries", json: #"{"ticker":"\#(rising)","rivalTicker":"\#(flat)"}"#,
                    headers: [("Authorization", "Bearer \(token)")])
                #expect(created.status == 201, "\(SystemClient.text(created))")
                let id = try #require(try await Self.rivalries(gateway, token).first?.id)
                pushes.tally.ids.withLock { $0.append(id) }
                let picked = try await SystemClient.send(
                    gateway, "POST", "/v1/rivalries/\(id)/pick", json: #"{"pick":"\#(pick)"}"#,
                    headers: [("Authorization", "Bearer \(token)")])
                #expect(picked.status == 200)
            }
            #expect(try await Self.xp(gateway, right) == 0)

            // Two scheduler replicas, their clocks 20 s before the close.
            replicas.first?.kill()
            replicas.removeAll()
            let env = [
                "MARKET_DATA_PRIMARY": "yahoo", "YAHOO_BASE_URL": yahoo.baseURL, "ENABLE_PUSH_SCHEDULER": "1",
                "SCHEDULER_CLOCK_START": Timestamp.iso8601(saturdayNoon.addingTimeInterval(-20)),
                "SCHEDULER_CLOCK_RATE": "1",
            ]
            replicas.append(try await ServiceProcess.start("Identify", extra: env))
            replicas.append(try await ServiceProcess.start("Identify", extra: env))

            try await SystemClient.waitForIdentify(gateway, auth: [("Authorization", "Bearer \(right)")])
            func closed(_ token: String) async -> Bool {
                ((try? await Self.rivalries(gateway, token))?.first?.wins ?? 0) == 1
            }
            let deadline = ContinuousClock.now + .seconds(90)
            while ContinuousClock.now < deadline {
                if await closed(right), await closed(wrong) { break }
                try await Task.sleep(for: .milliseconds(500))
            }
            let slot = CommandScheduler.slotKey(saturdayNoon)
            for token in [right, wrong] {
                let rivalry = try #require(try await Self.rivalries(gateway, token).first)
                #expect(rivalry.wins == 1 && rivalry.losses == 0 && rivalry.draws == 0)
                #expect(rivalry.currentPick == nil)
                #expect(rivalry.weekStart == RivalryTests.monday(saturdayNoon.addingTimeInterval(7 * 86_400)))
            }
            #expect(try await Self.xp(gateway, right) == RivalryClose.pickXP)
            #expect(try await Self.xp(gateway, wrong) == 0)

            // The close again (its slot row removed): nothing closes twice, nothing is paid or pushed twice.
            _ = try await db.execute("DELETE FROM identify.job_slots WHERE job = \(Self.job) AND slot = \(slot)")
            let again = ContinuousClock.now + .seconds(60)
            var republished = false
            while ContinuousClock.now < again, !republished {
                try await Task.sleep(for: .seconds(1))
                republished = try await !db.query(
                    "SELECT 1 AS one FROM identify.job_slots WHERE job = \(Self.job) AND slot = \(slot) AND done_at IS NOT NULL"
                ).isEmpty
            }
            #expect(republished)
            try await Task.sleep(for: .seconds(5))
            for token in [right, wrong] {
                let rivalry = try #require(try await Self.rivalries(gateway, token).first)
                #expect(rivalry.wins + rivalry.losses + rivalry.draws == 1)
            }
            #expect(try await Self.xp(gateway, right) == RivalryClose.pickXP)
            let counted = pushes.tally.counts.withLock { $0 }
            let ids = pushes.tally.ids.withLock { $0 }
            #expect(ids.count == 2 && counted == Dictionary(uniqueKeysWithValues: ids.map { ($0, 1) }))
            await pushes.stop()
            await db.close()
        }
    }
}
