import Contracts
import Foundation
import HTTPClient
import Postgres
import Runtime
import TestSupport
import Testing

extension SystemTests {
    /// Issue 26's phantom trial: Postgres fast-stopped during signed-in identify load. Every `find.recorded` is
    /// relayed from Identify's outbox after COMMIT, so Briefs' read model (fed by every such event, keyed by find
    /// id) ends up holding exactly the journal's finds: none lost, none that never committed.
    @Suite struct PhantomTrialTests {
        @Test func withTheDatabaseCircuit() async throws { try await Self.trial(circuit: true) }

        /// Without it each effect waits out its inline attempt: the printed hand-off times compare the two.
        @Test func withoutTheDatabaseCircuit() async throws { try await Self.trial(circuit: false) }

        /// Signed-in identifies of ten users while Postgres is fast-stopped for 4.5 s; then no phantom, no loss.
        static func trial(circuit: Bool) async throws {
            let briefs = try await ServiceProcess.start("Briefs")
            let identify = try await ServiceProcess.start(
                "Identify", extra: ["IDENTIFY_DB_CIRCUIT_THRESHOLD": circuit ? "3" : "0"])
            let gateway = try await GatewayProcess.start(instance: "test-phantom-\(UInt16.random(in: 0...9999))")
            defer {
                briefs.kill()
                identify.kill()
                gateway.process.kill()
            }
            var signedIn: [(auth: [(String, String)], userId: String)] = []
            for _ in 0..<10 { signedIn.append(try await BriefsFakes.signIn(gateway)) }
            let sessions = signedIn
            let users = sessions.map(\.userId)
            try await SystemClient.waitForIdentify(gateway, auth: sessions[0].auth)
            let brands = FaultTrialTests.distinctBrands()
            try #require(brands.count > 200)

            let start = ContinuousClock.now
            let (downAt, upAt, endAt) = (1.5, 6.0, 7.5)
            let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
                group.addTask {
                    try await StackFaults.postgresOutage(from: start, down: .seconds(downAt), up: .seconds(upAt))
                    return []
                }
                for (index, session) in sessions.enumerated() {
                    group.addTask {
                        var mine: [Int] = []
                        var next = index
                        while (ContinuousClock.now - start) < .seconds(endAt) {
                            let response = try await SystemClient.identify(
                                gateway, hint: brands[next % brands.count], device: nil, headers: session.auth)
                            mine.append(response.status)
                            next += sessions.count
                            try await Task.sleep(for: .milliseconds(50))
                        }
                        return mine
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(!statuses.isEmpty && statuses.allSatisfy { [200, 503].contains($0) })

            let db = try await PostgresPool.make(
                url: try TestEnvironment.require("POSTGRES_URL"), size: 1,
                logger: Logger(label: "phantom-trial", sink: .memory()), retryWindow: .seconds(10))
            func ids(_ table: String, _ column: String) async throws -> Set<String> {
                Set(
                    try await db.query(
                        "SELECT \(unescaped: column)::text AS id FROM \(unescaped: table) WHERE user_id = ANY(\(users))"
                    ).compactMap { $0.string("id") })
            }
            // Handed-off effects are applied and the relay drains the outbox; then both sides agree.
            var journal: Set<String> = []
            var readModel: Set<String> = []
            let deadline = ContinuousClock.now + .seconds(45)
            repeat {
                try await Task.sleep(for: .seconds(1))
                journal = try await ids("identify.user_finds", "id")
                readModel = try await ids("briefs.user_finds", "find_id")
                let backlog = try await db.query("SELECT count(*) AS n FROM identify.outbox").first?.int("n") ?? -1
                if readModel == journal && backlog == 0 && !journal.isEmpty { break }
            } while ContinuousClock.now < deadline
            let metrics = try await testHTTPClient.execute(
                HTTPClientRequest(
                    method: "GET", url: "http://127.0.0.1:\(identify.adminPort)/metrics", headers: [], body: [],
                    timeout: .seconds(5)))
            let text = String(decoding: metrics.body, as: UTF8.self)
            func sample(_ name: String) -> Double {
                text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap {
                    Double($0.split(separator: " ").last ?? "")
                } ?? 0
            }
            let handOffs = sample("identify_effects_handoff_seconds_count")
            print(
                "phantom trial (circuit \(circuit ? "on" : "off")): \(Int(handOffs)) effects handed off, mean \(handOffs > 0 ? sample("identify_effects_handoff_seconds_sum") / handOffs : 0) s from reply to hand-off, \(Int(sample("identify_effects_fast_handoffs_total"))) at once"
            )
            let phantoms = readModel.subtracting(journal)
            let missing = journal.subtracting(readModel)
            print(
                "phantom trial: \(statuses.count) identifies (\(statuses.filter { $0 == 200 }.count) × 200), \(journal.count) finds, \(readModel.count) read-model rows, \(phantoms.count) phantom, \(missing.count) missing"
            )
            #expect(!journal.isEmpty)
            #expect(phantoms.isEmpty, "read-model rows for finds that never committed: \(phantoms.sorted())")
            #expect(missing.isEmpty, "finds whose event never reached the read model: \(missing.sorted())")
            await db.close()
        }
    }
}
