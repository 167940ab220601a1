import Contracts
import Foundation
import HTTPClient
import Postgres
import Runtime
import TestSupport
import Testing

extension SystemTests {
    /// The admin surface: scope (401/403), the manual grant that lifts the identify quota, abuse trips and every
    /// admin action in the admin log, and request counts summed from the usage reports.
    @Suite struct AdminTests {
        static func logEntries(_ gateway: GatewayProcess, _ auth: [(String, String)]) async throws -> [[String: Any]] {
            let response = try await SystemClient.send(gateway, "GET", "/v1/admin/log?limit=500", headers: auth)
            #expect(response.status == 200)
            return SystemClient.json(response)["entries"] as? [[String: Any]] ?? []
        }

        @Test func scopeGrantAbuseAndMetrics() async throws {
            let adminEmail = "admin-\(UInt32.random(in: 0...UInt32.max))@example.com"
            let identify = try await ServiceProcess.start("Identify")
            let gateway = try await GatewayProcess.start(
                instance: "test-admin-\(UInt16.random(in: 0...9999))", limits: true,
                extra: [
                    "ADMIN_EMAILS": "other@example.com, \(adminEmail.uppercased())", "USAGE_REPORT_INTERVAL_MS": "200",
                ])
            defer {
                identify.kill()
                gateway.process.kill()
            }
            let ip = EdgeGuardTests.ip()
            let at = [("X-Forwarded-For", ip)]
            let admin =
                at + [
                    ("Authorization", "Bearer \(try await FindsTests.signIn(gateway, email: adminEmail, headers: at))")
                ]
            let userEmail = "user-\(UInt32.random(in: 0...UInt32.max))@example.com"
            let user =
                at + [
                    ("Authorization", "Bearer \(try await FindsTests.signIn(gateway, email: userEmail, headers: at))")
                ]

            // Scope: anonymous 401, a signed-in non-admin 403 on every admin route.
            #expect(try await SystemClient.send(gateway, "GET", "/v1/admin/users", headers: at).status == 401)
            for path in ["/v1/admin/metrics", "/v1/admin/users", "/v1/admin/log", "/v1/admin/cost"] {
                #expect(try await SystemClient.send(gateway, "GET", path, headers: user).status == 403)
            }
            #expect(
                try await SystemClient.send(
                    gateway, "POST", "/v1/admin/users/x/entitlement", json: #"{"freeForever":true}"#, headers: user
                ).status == 403)

            // The user has spent the free tier.
            let listed = try await SystemClient.send(gateway, "GET", "/v1/admin/users", headers: admin)
            #expect(listed.status == 200)
            let users = SystemClient.json(listed)["users"] as? [[String: Any]] ?? []
            let userId = try #require(users.first { $0["email"] as? String == userEmail }?["id"] as? String)
            let db = try await PostgresPool.make(
                url: try TestEnvironment.require("POSTGRES_URL"), size: 1, logger: Logger(label: "t", sink: .memory()))
            for _ in 0..<50 {
                _ = try await db.execute(
                    "INSERT INTO gateway.usage_events (user_id, kind) VALUES (\(userId), 'identify')")
            }
            await db.close()
            try await SystemClient.waitForIdentify(gateway, auth: user)
            let exhausted = try await SystemClient.identify(gateway, hint: "Starbucks", device: nil, headers: user)
            #expect(exhausted.status == 402)

            // The grant: bad bodies are 400, an unknown user 404, then the quota no longer applies.
            let grantPath = "/v1/admin/users/\(userId)/entitlement"
            #expect(try await SystemClient.send(gateway, "POST", grantPath, json: "{}", headers: admin).status == 400)
            #expect(
                try await SystemClient.send(
                    gateway, "POST", "/v1/admin/users/usr_missing/entitlement", json: #"{"freeForever":true}"#,
                    headers: admin
                ).status == 404)
            let granted = try await SystemClient.send(
                gateway, "POST", grantPath, json: #"{"freeForever":true,"reason":"beta tester"}"#, headers: admin)
            #expect(granted.status == 200)
            let entitlement = (SystemClient.json(granted)["user"] as? [String: Any])?["entitlement"] as? [String: Any]
            #expect(entitlement?["freeForever"] as? Bool == true)
            let unlimited = try await SystemClient.identify(gateway, hint: "Starbucks", device: nil, headers: user)
            #expect(unlimited.status == 200)

            // Abuse: 31 attempts inside a minute from one address trip it; the trip is in the admin log once.
            let abuser = [("X-Forwarded-For", EdgeGuardTests.ip())]
            var last = 0
            for _ in 0..<32 {
                last = try await SystemClient.identify(gateway, hint: "x", device: nil, headers: abuser).status
            }
            #expect(last == 429)
            let entries = try await Self.logEntries(gateway, admin)
            let trips = entries.filter {
                $0["kind"] as? String == "suspected_abuse" && $0["subject"] as? String == "ip:\(abuser[0].1)"
            }
            #expect(trips.count == 1)
            #expect(
                entries.contains {
                    $0["kind"] as? String == "entitlement_granted" && $0["subject"] as? String == userId
                })
            #expect(entries.first?["kind"] as? String == "admin_action")  // this very read, newest first
            let actions = entries.filter { $0["kind"] as? String == "admin_action" && $0["actor"] as? String != nil }
            #expect(actions.count >= 5)  // users, two grants that reached the handler, the 404, this log read
            let ids = entries.compactMap { $0["id"] as? Int }
            #expect(ids == ids.sorted(by: >))

            // Metrics: request counts per route from the usage reports (flushed every 200 ms here).
            var requests: [String: Any] = [:]
            for _ in 0..<50 {
                let metrics = try await SystemClient.send(
                    gateway, "GET", "/v1/admin/metrics?windowSeconds=3600", headers: admin)
                #expect(metrics.status == 200)
                let body = SystemClient.json(metrics)
                requests = body["requests"] as? [String: Any] ?? [:]
                if (requests["POST /v1/identify"] as? Int ?? 0) >= 34 { break }
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect((requests["POST /v1/identify"] as? Int ?? 0) >= 34)
            let cost = try await SystemClient.send(gateway, "GET", "/v1/admin/cost", headers: admin)
            #expect(cost.status == 200)
            #expect(SystemClient.json(cost)["basis"] as? String != nil)
            #expect(
                try await SystemClient.send(gateway, "GET", "/v1/admin/cost?windowSeconds=-1", headers: admin).status
                    == 400)
        }
    }
}
