import Contracts
import Crypto
import Foundation
import HTTPClient
import Postgres
import Runtime
import TestSupport
import Testing

extension SystemTests {
    /// The gateway's edge with limits on: the global limiter shared by two gateways, the identify guards in the
    /// contract's order, quota, and sessions (sign-in and forged tokens). Each test uses its own client IP
    /// (`X-Forwarded-For` with `TRUSTED_PROXY_HOPS=1`) so their windows never meet.
    @Suite struct EdgeGuardTests {
        static func ip() -> String {
            "10.\(UInt8.random(in: 0...255)).\(UInt8.random(in: 0...255)).\(UInt8.random(in: 1...254))"
        }

        @Test func globalLimiterIsSharedByTwoGateways() async throws {
            let a = try await GatewayProcess.start(instance: "test-rl-a-\(UInt16.random(in: 0...9999))", limits: true)
            let b = try await GatewayProcess.start(instance: "test-rl-b-\(UInt16.random(in: 0...9999))", limits: true)
            defer {
                a.process.kill()
                b.process.kill()
            }
            let device = "rl-\(UUID().uuidString)"
            var statuses: [Int] = []
            for i in 0..<300 {
                let response = try await SystemClient.send(
                    i % 2 == 0 ? a : b, "GET", "/v1/nope", headers: [("X-Device-Id", device)])
                statuses.append(response.status)
                if i == 0 { #expect(response.headers["X-RateLimit-Limit"] == "300") }
            }
            #expect(statuses.allSatisfy { $0 == 404 })
            let limited = try await SystemClient.send(a, "GET", "/v1/nope", headers: [("X-Device-Id", device)])
            #expect(limited.status == 429)
            #expect(SystemClient.errorMessage(limited) == "rate limit exceeded")
            #expect((SystemClient.json(limited)["retryAfter"] as? Int ?? 0) >= 1)
            #expect(limited.headers["Retry-After"] != nil)
            #expect(limited.headers["X-RateLimit-Remaining"] == "0")
            // Health is never counted.
            #expect(
                try await SystemClient.send(a, "GET", "/v1/health", headers: [("X-Device-Id", device)]).status == 200)
        }

        @Test func identifyGuardsInOrder() async throws {
            let identify = try await ServiceProcess.start("Identify")
            let gateway = try await GatewayProcess.start(
                instance: "test-guard-\(UInt16.random(in: 0...9999))", limits: true)
            defer {
                identify.kill()
                gateway.process.kill()
            }
            let ip = Self.ip()

            // No device id and no session: 400, with the identify headers already set (step 4 counted it).
            let anonymous = try await SystemClient.identify(
                gateway, hint: "Starbucks", device: nil, headers: [("X-Forwarded-For", "6.6.6.6, \(ip)")])
            #expect(anonymous.status == 400)
            #expect(SystemClient.errorMessage(anonymous) == "X-Device-Id header required for anonymous requests")
            #expect(anonymous.headers["X-Identify-RateLimit-Minute"] == "10")
            #expect(anonymous.headers["X-Identify-RateLimit-Minute-Remaining"] == "9")

            var statuses: [Int] = []
            for _ in 0..<9 {
                let response = try await SystemClient.identify(
                    gateway, hint: "Starbucks", device: "guard-dev", headers: [("X-Forwarded-For", ip)])
                statuses.append(response.status)
            }
            #expect(statuses.allSatisfy { $0 == 200 })
            let limited = try await SystemClient.identify(
                gateway, hint: "Starbucks", device: "guard-dev", headers: [("X-Forwarded-For", ip)])
            #expect(limited.status == 429)
            #expect(SystemClient.errorMessage(limited) == "identify rate limit exceeded")
            #expect(limited.headers["X-Identify-RateLimit-Minute-Remaining"] == "0")
            #expect(limited.headers["X-Identify-RateLimit-Hour"] == "60")
        }

        @Test func quotaIsEnforcedPerDevice() async throws {
            let gateway = try await GatewayProcess.start(
                instance: "test-quota-\(UInt16.random(in: 0...9999))", limits: true)
            defer { gateway.process.kill() }
            let device = "quota-\(UUID().uuidString)"
            let db = try await PostgresPool.make(
                url: try TestEnvironment.require("POSTGRES_URL"), size: 1, logger: Logger(label: "t", sink: .memory()))
            for _ in 0..<50 {
                _ = try await db.execute(
                    "INSERT INTO gateway.usage_events (device_id, kind) VALUES (\(device), 'identify')")
            }
            await db.close()
            let response = try await SystemClient.identify(
                gateway, hint: "Starbucks", device: device, headers: [("X-Forwarded-For", Self.ip())])
            #expect(response.status == 402)
            let body = SystemClient.json(response)
            #expect(body["error"] as? String == "generation quota exceeded")
            #expect(body["code"] as? String == "quota_exceeded")
            #expect(body["limit"] as? Int == 50)
            #expect(body["remaining"] as? Int == 0)
            #expect(body["priceUsd"] as? Double == 19.99)
            #expect(body["interval"] as? String == "month")
        }

        @Test func signInAndForgedTokens() async throws {
            let gateway = try await GatewayProcess.start(
                instance: "test-auth-\(UInt16.random(in: 0...9999))", limits: true)
            defer { gateway.process.kill() }
            let ip = [("X-Forwarded-For", Self.ip())]
            let email = "person-\(UInt32.random(in: 0...UInt32.max))@example.com"

            #expect(
                try await SystemClient.send(gateway, "POST", "/v1/auth/session", json: "{}", headers: ip).status == 400)
            let issued = try await SystemClient.send(
                gateway, "POST", "/v1/auth/session", json: "{\"email\":\"\(email)\"}", headers: ip)
            #expect(issued.status == 200)
            let code = try #require(SystemClient.json(issued)["devCode"] as? String)

            let wrongCode = code == "000000" ? "111111" : "000000"
            let wrong = try await SystemClient.send(
                gateway, "POST", "/v1/auth/session/verify", json: "{\"email\":\"\(email)\",\"code\":\"\(wrongCode)\"}",
                headers: ip)
            #expect(wrong.status == 401)
            #expect(SystemClient.errorMessage(wrong) == "wrong code")

            let verified = try await SystemClient.send(
                gateway, "POST", "/v1/auth/session/verify", json: "{\"email\":\"\(email)\",\"code\":\"\(code)\"}",
                headers: ip)
            #expect(verified.status == 200)
            let session = try #require(SystemClient.json(verified)["session"] as? [String: Any])
            let token = try #require(session["token"] as? String)
            let me = try await SystemClient.send(
                gateway, "GET", "/v1/auth/me", headers: ip + [("Authorization", "Bearer \(token)")])
            #expect(me.status == 200)
            #expect((SystemClient.json(me)["user"] as? [String: Any])?["email"] as? String == email)

            // Forgeries.
            let key = Array(GatewayConfigurationKey.dev.utf8)
            let now = Int64(Date().timeIntervalSince1970)
            let userId = session["userId"] as? String ?? ""
            func claims(_ purpose: String, exp: Int64) -> String {
                "{\"purpose\":\"\(purpose)\",\"sub\":\"\(userId)\",\"email\":\"\(email)\",\"exp\":\(exp)}"
            }
            func signed(_ header: String, _ payload: String, key: [UInt8]) -> String {
                let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
                return input + "." + Base64URL.encode(Digest.hmacSHA256(key: key, message: Array(input.utf8)))
            }
            let hs256 = #"{"alg":"HS256","typ":"JWT"}"#
            let cases: [(String, String)] = [
                (
                    Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "."
                        + Base64URL.encode(Array(claims("session", exp: now + 600).utf8)) + ".", "invalid token"
                ),
                (
                    signed(
                        hs256, claims("session", exp: now + 600),
                        key: Array("some other key of thirty-two bytes!!".utf8)), "invalid token"
                ),
                (signed(hs256, claims("session", exp: now - 10), key: key), "invalid token"),
                (signed(hs256, claims("magic", exp: now + 600), key: key), "wrong token purpose"),
                (signed(#"{"alg":"HS512","typ":"JWT"}"#, claims("session", exp: now + 600), key: key), "invalid token"),
            ]
            for (forged, message) in cases {
                let response = try await SystemClient.send(
                    gateway, "GET", "/v1/auth/me", headers: ip + [("Authorization", "Bearer \(forged)")])
                #expect(response.status == 401)
                #expect(SystemClient.errorMessage(response) == message)
            }
            var parts = token.split(separator: ".").map(String.init)
            parts[1] = Base64URL.encode(
                Array(claims("session", exp: now + 99999).replacingOccurrences(of: userId, with: "usr_admin").utf8))
            let tampered = try await SystemClient.send(
                gateway, "GET", "/v1/auth/me",
                headers: ip + [("Authorization", "Bearer \(parts.joined(separator: "."))")])
            #expect(tampered.status == 401)
            let missing = try await SystemClient.send(gateway, "GET", "/v1/auth/me", headers: ip)
            #expect(SystemClient.errorMessage(missing) == "missing bearer token")
        }
    }
}

/// The signing key gateways use under `MAPVEST_ENV=dev` without `SESSION_SIGNING_KEY` (as in the test stack).
enum GatewayConfigurationKey {
    static let dev = "mapvest-dev-signing-key-not-for-production-use"
}
