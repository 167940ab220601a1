import Contracts
import Finance
import Foundation
import HTTPClient
import Kafka
import Messaging
import Postgres
import Runtime
import TestSupport
import Testing

extension SystemTests {
    /// Outside fault trials against real processes: Postgres and Redis stopped and started on the same port while
    /// traffic flows. Nothing acknowledged may be lost, and a lost dependency is a 503, never a 500 or an empty 200.
    @Suite struct FaultTrialTests {
        /// Seed brands with distinct tickers (so identifies of one user record different finds).
        static func distinctBrands() -> [String] {
            var byTicker: [String: String] = [:]
            for (key, entry) in BrandSeed.shared.entries
            where key.allSatisfy({ ($0.isLetter && $0.isASCII) || $0 == " " }) {
                if let current = byTicker[entry.ticker], current.count <= key.count { continue }
                byTicker[entry.ticker] = key
            }
            return byTicker.sorted { $0.key < $1.key }.map(\.value)
        }

        struct Answer: Sendable {
            let user: Int
            let status: Int
            let ticker: String?
            let sent: Double
            var finished: Double = 0
        }

        @Test func postgresRestartDuringSignedInIdentifiesLosesNoFind() async throws {
            let identify = try await ServiceProcess.start("Identify")
            let gateway = try await GatewayProcess.start(instance: "test-pg-restart-\(UInt16.random(in: 0...9999))")
            defer {
                identify.kill()
                gateway.process.kill()
            }
            let users = 3
            var tokens: [String] = []
            for _ in 0..<users { tokens.append(try await FindsTests.signIn(gateway)) }
            let auth = tokens.map { [("Authorization", "Bearer \($0)")] }
            try await SystemClient.waitForIdentify(gateway, auth: auth[0])
            let brands = Self.distinctBrands()
            try #require(brands.count > 200)

            let start = ContinuousClock.now
            let (downAt, upAt, endAt) = (1.5, 4.5, 7.0)
            let outcomes = try await withThrowingTaskGroup(of: [Answer].self) { group in
                group.addTask {
                    try await StackFaults.postgresOutage(from: start, down: .seconds(downAt), up: .seconds(upAt))
                    return []
                }
                // Reads during the outage: retried within the budget, then 503 — never 500.
                group.addTask {
                    var reads: [Answer] = []
                    while (ContinuousClock.now - start) < .seconds(endAt) {
                        let sent = (ContinuousClock.now - start).inSeconds
                        let listed = try await SystemClient.send(gateway, "GET", "/v1/finds?limit=5", headers: auth[0])
                        reads.append(Answer(user: -1, status: listed.status, ticker: nil, sent: sent))
                        try await Task.sleep(for: .milliseconds(300))
                    }
                    return reads
                }
                for user in 0..<users {
                    group.addTask {
                        var mine: [Answer] = []
                        var next = user
                        while (ContinuousClock.now - start) < .seconds(endAt) {
                            let sent = (ContinuousClock.now - start).inSeconds
                            let response = try await SystemClient.identify(
                                gateway, hint: brands[next % brands.count], device: nil, headers: auth[user])
                            next += users
                            let ticker = (try? JSONDecoder().decode(IdentifyResponse.self, from: Data(response.body)))?
                                .investables.first?.brand.ticker?.symbol
                            mine.append(
                                Answer(
                                    user: user, status: response.status, ticker: ticker, sent: sent,
                                    finished: (ContinuousClock.now - start).inSeconds))
                            try await Task.sleep(for: .milliseconds(100))
                        }
                        return mine
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            let answers = outcomes.filter { $0.user >= 0 }
            let listStatuses = outcomes.filter { $0.user < 0 }.map(\.status)
            let ok = answers.filter { $0.status == 200 }
            let duringOutage = ok.filter { $0.sent < upAt && $0.finished > downAt }
            print(
                "pg restart trial: \(answers.count) identifies, \(ok.count) answered 200 (\(duringOutage.count) during the outage); finds reads \(listStatuses)"
            )
            #expect(!answers.isEmpty && answers.allSatisfy { [200, 503].contains($0.status) })
            #expect(!listStatuses.isEmpty && listStatuses.allSatisfy { [200, 503].contains($0) })
            #expect(!duringOutage.isEmpty)
            // The trial did what it is for: effects that failed after a 200 were handed off, not dropped.
            #expect(identify.log.contains("identify effects failed; handing them off"))

            // Every 200's find is in the journal once Postgres is back (handed-off effects are applied).
            var missing: [String] = []
            let deadline = ContinuousClock.now + .seconds(40)
            repeat {
                missing = []
                for user in 0..<users {
                    let expected = Set(ok.filter { $0.user == user }.compactMap(\.ticker))
                    let listed = try await SystemClient.send(gateway, "GET", "/v1/finds?limit=200", headers: auth[user])
                    let finds = (try? JSONDecoder().decode(FindsResponse.self, from: Data(listed.body)).finds) ?? []
                    missing += expected.subtracting(finds.compactMap { $0.ticker?.uppercased() }).sorted()
                }
                if missing.isEmpty { break }
                try await Task.sleep(for: .milliseconds(500))
            } while ContinuousClock.now < deadline
            #expect(missing == [], "finds lost: \(missing.count) of \(ok.count)")
        }

        @Test func nearbyReadModelKeepsEveryEventAcrossATwentySecondPostgresOutage() async throws {
            let nearby = try await ServiceProcess.start("Nearby")
            defer { nearby.kill() }
            let kafka = KafkaConfiguration.fromEnvironment(Environment())
            let logger = Logger(label: "fault-trial", sink: .memory())
            let producer = try KafkaProducer.make(configuration: kafka, logger: logger)
            let db = try await PostgresPool.make(
                url: try TestEnvironment.require("POSTGRES_URL"), size: 1, logger: logger, retryWindow: .seconds(10))
            let user = TestEnvironment.uniqueName("reader")

            let start = ContinuousClock.now
            let (downAt, upAt, endAt) = (1.0, 21.0, 22.0)
            var sent = 0
            let outage = Task {
                try await StackFaults.postgresOutage(from: start, down: .seconds(downAt), up: .seconds(upAt))
            }
            while (ContinuousClock.now - start) < .seconds(endAt) {
                let event = CloudEvent(
                    id: UUID().uuidString, source: "/mapvest/identify", type: FindRecordedEvent.type,
                    time: Timestamp.iso8601(Date()), schemaVersion: FindRecordedEvent.schemaVersion, subject: nil,
                    data: FindRecordedEvent(
                        findId: "\(user)-\(sent)", userId: user, brand: "Brand \(sent)", ticker: nil, comparable: nil,
                        isPublic: false, geohash6: "dr5ru6", createdAt: Timestamp.iso8601(Date())))
                _ = try await producer.send(
                    topic: Topics.events, key: Array(user.utf8), value: Array(try JSONEncoder().encode(event)),
                    headers: [])
                sent += 1
                try await Task.sleep(for: .milliseconds(250))
            }
            try await outage.value

            var stored = 0
            let deadline = ContinuousClock.now + .seconds(40)
            repeat {
                stored =
                    (try? await db.query("SELECT count(*) AS n FROM nearby.captures WHERE user_id = \(user)"))?.first?
                    .int("n") ?? 0
                if stored == sent { break }
                try await Task.sleep(for: .milliseconds(500))
            } while ContinuousClock.now < deadline
            print("read model trial: \(sent) events sent across a \(upAt - downAt) s outage, \(stored) stored")
            #expect(sent > 60)
            #expect(stored == sent)
            // The outage costs a few log lines, not thousands: repeated failures are rate-limited (one per 5 s).
            let connectFailures = nearby.log.components(separatedBy: "postgres connect failed").count - 1
            let writeFailures = nearby.log.components(separatedBy: "read model write failed").count - 1
            print("read model trial: \(connectFailures) connect-failure and \(writeFailures) write-failure log lines")
            #expect(connectFailures <= Int((upAt - downAt) / 5) + 2)
            #expect(writeFailures <= Int((upAt - downAt) / 5) + 2)
            await db.close()
        }

        @Test func aVanishedPhotoIsA503NotAnEmptyAnswer() async throws {
            let identify = try await ServiceProcess.start("Identify")
            defer { identify.kill() }
            let kafka = KafkaConfiguration.fromEnvironment(Environment())
            let logger = Logger(label: "fault-trial", sink: .memory())
            let producer = try KafkaProducer.make(configuration: kafka, logger: logger)
            let client = try await RequestReplyClient.make(
                configuration: kafka, instanceId: TestEnvironment.uniqueName("trial-gw"), producer: producer,
                maxInFlight: 4, logger: logger)
            let replies = Task { try await client.run() }
            let command = IdentifyPhotoCommand(
                photoKey: IdentifyPhotoCommand.photoKeyPrefix + UUID().uuidString, photoContentType: "image/jpeg",
                photoBytes: 10,
                hint: "Starbucks", location: nil, roi: nil, userId: nil, deviceId: "trial")
            let reply = try await client.request(
                OutgoingCommand(
                    service: .identify, name: IdentifyPhotoCommand.name, key: "trial",
                    body: Array(try JSONEncoder().encode(command)), requestId: "trial"),
                budget: .seconds(20))
            #expect(reply.status == 503)
            #expect(String(decoding: reply.body, as: UTF8.self) == #"{"error":"photo expired, retry"}"#)
            await client.shutdown()
            try await replies.value
        }

        @Test func redisRestartDuringIdentifyGivesOnly503sAnd200sWithAnswers() async throws {
            let identify = try await ServiceProcess.start("Identify")
            let gateway = try await GatewayProcess.start(instance: "test-redis-restart-\(UInt16.random(in: 0...9999))")
            defer {
                identify.kill()
                gateway.process.kill()
            }
            let photo = try await TestImages.draw("STARBUCKS")
            let warm = try await SystemClient.identify(gateway, hint: nil, image: photo)
            #expect(warm.status == 200)

            let start = ContinuousClock.now
            let (downAt, upAt, endAt) = (2.0, 3.5, 7.0)
            let outcomes = try await withThrowingTaskGroup(of: [(Int, Int)].self) { group in
                group.addTask {
                    try await Task.sleep(for: .seconds(downAt))
                    try await StackFaults.stopRedis()
                    try await Task.sleep(until: start + .seconds(upAt))
                    try await StackFaults.startRedis()
                    return []
                }
                for worker in 0..<3 {
                    group.addTask {
                        var mine: [(Int, Int)] = []
                        while (ContinuousClock.now - start) < .seconds(endAt) {
                            let response = try await SystemClient.identify(
                                gateway, hint: nil, device: "redis-\(worker)", image: photo)
                            let found =
                                (try? JSONDecoder().decode(IdentifyResponse.self, from: Data(response.body)))?
                                .investables.count ?? 0
                            mine.append((response.status, found))
                            // A 503 comes at once while Redis is down: do not spin.
                            if response.status != 200 { try await Task.sleep(for: .milliseconds(50)) }
                        }
                        return mine
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            let statuses = outcomes.map(\.0)
            print(
                "redis restart trial: \(statuses.count) identifies, \(statuses.filter { $0 == 200 }.count) × 200, \(statuses.filter { $0 == 503 }.count) × 503"
            )
            #expect(!statuses.isEmpty && statuses.allSatisfy { [200, 503].contains($0) })
            #expect(outcomes.filter { $0.0 == 200 }.allSatisfy { $0.1 > 0 }, "a 200 without the photo's answer")
            #expect(statuses.contains(503))
            #expect(statuses.contains(200))
        }

        /// A hung Postgres (stopped, its connections open): the gateway's signed-in lookups end at their deadline
        /// (`LOOKUP_BUDGET_MS`) with a 503, never waiting on the query; answers come back when it resumes.
        @Test func aFrozenPostgresAnswersSignedInLookups503AtTheLookupDeadline() async throws {
            let gateway = try await GatewayProcess.start(
                instance: "test-pg-freeze-\(UInt16.random(in: 0...9999))", extra: ["LOOKUP_BUDGET_MS": "1500"])
            defer { gateway.process.kill() }
            let auth = [("Authorization", "Bearer \(try await FindsTests.signIn(gateway))")]
            #expect(try await SystemClient.send(gateway, "GET", "/v1/auth/me", headers: auth).status == 200)

            try StackFaults.freezePostgres()
            var thawed = false
            defer { if !thawed { try? StackFaults.thawPostgres() } }
            for _ in 0..<2 {
                let started = ContinuousClock.now
                let me = try await SystemClient.send(gateway, "GET", "/v1/auth/me", headers: auth)
                let elapsed = ContinuousClock.now - started
                #expect(me.status == 503 && SystemClient.errorMessage(me) == "user store unavailable")
                #expect(elapsed < .seconds(4), "answered after \(elapsed)")
            }
            try StackFaults.thawPostgres()
            thawed = true

            var status = 0
            for _ in 0..<50 where status != 200 {
                status = try await SystemClient.send(gateway, "GET", "/v1/auth/me", headers: auth).status
                if status != 200 { try await Task.sleep(for: .milliseconds(200)) }
            }
            #expect(status == 200)
        }
    }
}
