import Foundation
import HTTPClient
import Postgres
import Runtime
import TestSupport
import Testing

extension SystemTests {
    /// The free tier is one count shared by every gateway replica: a burst from one device across two replicas
    /// spends exactly what was left, and both replicas then report the same remaining quota.
    @Suite struct QuotaReplicaTests {
        @Test func twoReplicasNeverSpendPastTheFreeTier() async throws {
            let identify = try await ServiceProcess.start("Identify")
            let a = try await GatewayProcess.start(
                instance: "test-quota-a-\(UInt16.random(in: 0...9999))", limits: true)
            let b = try await GatewayProcess.start(
                instance: "test-quota-b-\(UInt16.random(in: 0...9999))", limits: true)
            let db = try await PostgresPool.make(
                url: try TestEnvironment.require("POSTGRES_URL"), size: 1, logger: Logger(label: "t", sink: .memory()))
            defer {
                identify.kill()
                [a, b].forEach { $0.process.kill() }
            }
            let (token, _) = try await SystemClient.signIn(a, headers: [("X-Forwarded-For", EdgeGuardTests.ip())])
            for gateway in [a, b] {
                try await SystemClient.waitForIdentify(
                    gateway, auth: [("Authorization", "Bearer \(token)"), ("X-Forwarded-For", EdgeGuardTests.ip())])
            }
            let device = "burst-\(UInt32.random(in: 0...UInt32.max))"
            for _ in 0..<40 {
                _ = try await db.execute(
                    "INSERT INTO gateway.usage_events (device_id, kind) VALUES (\(device), 'identify')")
            }
            // 200 at once, alternating replicas, each from its own address (the per-IP buckets stay out of it).
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for i in 0..<200 {
                    let gateway = i % 2 == 0 ? a : b
                    group.addTask {
                        try await SystemClient.identify(
                            gateway, hint: "Starbucks", device: device,
                            headers: [("X-Forwarded-For", EdgeGuardTests.ip())]
                        ).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let answered = statuses.filter { $0 == 200 }.count
            #expect(answered <= 10)
            #expect(answered >= 1)
            #expect(statuses.allSatisfy { $0 == 200 || $0 == 402 || $0 == 503 || $0 == 504 })
            let used = try await db.query(
                "SELECT count(*) AS n FROM gateway.usage_events WHERE user_id IS NULL AND device_id = \(device)"
            ).first?.int("n")
            #expect(used == 40 + answered)
            for gateway in [a, b] {
                let state = SystemClient.json(
                    try await SystemClient.send(
                        gateway, "GET", "/v1/entitlements",
                        headers: [("X-Device-Id", device), ("X-Forwarded-For", EdgeGuardTests.ip())]))
                #expect(state["remaining"] as? Int == 10 - answered)
            }
            await db.close()
        }
    }
}
