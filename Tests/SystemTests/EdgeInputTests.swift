import Contracts
import Foundation
import HTTPClient
import TestSupport
import Testing

extension SystemTests {
    /// The edge's input rules through real processes: numbers from outside are range-checked before any `Int`
    /// conversion (no request traps a service), NUL characters are a 400 everywhere, and the OpenAPI document
    /// covers every route the gateway serves.
    @Suite struct EdgeInputTests {
        @Test func hugeNumbersAreRefusedAndCrashNothing() async throws {
            // Every places source refuses at once: a nearby answer is a prompt 502, never a wait for the budget.
            let nearby = try await ServiceProcess.start(
                "Nearby", extra: ["OVERPASS_URLS": "http://127.0.0.1:9", "PHOTON_BASE_URL": "http://127.0.0.1:9"])
            let identify = try await ServiceProcess.start("Identify")
            let gateway = try await GatewayProcess.start(
                instance: "test-numbers-\(UInt16.random(in: 0...9999))")
            defer {
                nearby.kill()
                identify.kill()
                gateway.process.kill()
            }
            let token = try await FindsTests.signIn(gateway)
            let auth = [("Authorization", "Bearer \(token)")]
            try await SystemClient.waitForIdentify(gateway, auth: auth)

            // Outside the documented range is a 400 naming the field, never a clamp or a trap.
            let outside = try await SystemClient.send(gateway, "GET", "/v1/finds?limit=1e19", headers: auth)
            #expect(outside.status == 400 && SystemClient.errorMessage(outside) == "limit must be between 1 and 200")
            for query in ["limit=1e400", "limit=inf", "limit=nan", "limit=-1e999"] {
                let refused = try await SystemClient.send(gateway, "GET", "/v1/finds?\(query)", headers: auth)
                #expect(refused.status == 400, "\(query)")
                #expect(SystemClient.errorMessage(refused) == "limit must be a finite number")
            }
            #expect(try await SystemClient.send(gateway, "GET", "/v1/news?ticker=NKE&limit=1e400").status == 400)

            for (query, field) in [
                ("zoom=1e300", "zoom"), ("zoom=-1e300", "zoom"), ("radius=1e308&limit=1e19", "radius"),
                ("limit=-1e19", "limit"),
            ] {
                let answer = try await SystemClient.send(gateway, "GET", "/v1/nearby?lat=10.5&lng=10.5&\(query)")
                #expect(
                    answer.status == 400 && SystemClient.errorMessage(answer)?.hasPrefix(field + " must be") == true,
                    "\(query): \(answer.status) \(SystemClient.text(answer))")
            }
            // In range, every places source refusing is a prompt 502.
            let inRange = try await SystemClient.send(gateway, "GET", "/v1/nearby?lat=10.5&lng=10.5&radius=800")
            #expect(inRange.status == 502, "\(inRange.status) \(SystemClient.text(inRange))")
            let notFinite = try await SystemClient.send(gateway, "GET", "/v1/nearby?lat=10.5&lng=10.5&zoom=1e400")
            #expect(notFinite.status == 400)
            #expect(SystemClient.errorMessage(notFinite) == "zoom must be a finite number")
            #expect(nearby.process.isRunning, "Nearby trapped: \(nearby.log.suffix(1500))")
            #expect(gateway.process.process.isRunning, "Gateway trapped: \(gateway.process.log.suffix(1500))")
            #expect(try await SystemClient.send(gateway, "GET", "/v1/health").status == 200)
        }

        @Test func nulCharactersAreA400Everywhere() async throws {
            let gateway = try await GatewayProcess.start(instance: "test-nul-\(UInt16.random(in: 0...9999))")
            defer { gateway.process.kill() }
            let token = try await FindsTests.signIn(gateway)
            let auth = [("Authorization", "Bearer \(token)")]
            let nul = #"\u0000"#
            let expo = "ExponentPushToken[abc]"
            let cases: [(String, String, String?)] = [
                ("POST", "/v1/finds", #"{"finds":[{"brand":"a\#(nul)b","confidence":"high"}]}"#),
                ("POST", "/v1/finds", #"{"finds":[{"brand":"Nike","ticker":"NK\#(nul)E","confidence":"high"}]}"#),
                ("POST", "/v1/push/register", #"{"token":"ExponentPushToken[a\#(nul)b]","platform":"ios"}"#),
                ("POST", "/v1/push/register", #"{"token":"\#(expo)","platform":"ios","deviceId":"d\#(nul)"}"#),
                ("POST", "/v1/push/prefs", #"{"tokenId":"t\#(nul)","prefs":{"daily_brief":true}}"#),
                ("GET", "/v1/push/prefs?tokenId=a%00b", nil),
                ("DELETE", "/v1/push/token/a%00b", nil),
                ("POST", "/v1/search/intent", #"{"q":"ni\#(nul)ke"}"#),
                ("POST", "/v1/resolve-comparable", #"{"brand":"Ni\#(nul)ke"}"#),
            ]
            for (method, path, body) in cases {
                let answer = try await SystemClient.send(gateway, method, path, json: body, headers: auth)
                #expect(answer.status == 400, "\(method) \(path) \(body ?? ""): \(answer.status)")
                #expect(SystemClient.errorMessage(answer)?.isEmpty == false)
            }
            for route in ["/v1/auth/session", "/v1/auth/request-magic-link"] {
                let email = try await SystemClient.send(
                    gateway, "POST", route, json: #"{"email":"a\#(nul)@example.com"}"#)
                #expect(email.status == 400, "\(route)")
            }
            // Invalid UTF-8 in a JSON body.
            let invalid = try await testHTTPClient.execute(
                HTTPClientRequest(
                    method: "POST", url: gateway.baseURL + "/v1/auth/session",
                    headers: [("Content-Type", "application/json")],
                    body: Array(#"{"email":"a"#.utf8) + [0xC3, 0x28] + Array(#"@example.com"}"#.utf8)))
            #expect(invalid.status == 400)
            // A NUL in a multipart text field.
            var form = MultipartBody()
            form.addText(name: "hint", value: "Star\u{0}bucks")
            form.addFile(name: "image", filename: "p.jpg", contentType: "image/jpeg", data: MultipartBody.fakeJPEG)
            let identify = try await testHTTPClient.execute(
                HTTPClientRequest(
                    method: "POST", url: gateway.baseURL + "/v1/identify",
                    headers: [("Content-Type", form.contentType), ("X-Device-Id", "nul")], body: form.finished()))
            #expect(identify.status == 400)
            #expect(gateway.process.process.isRunning)
        }

        /// Defect 10: SIGTERM under keep-alive load resets no request; each client's last answer says
        /// `Connection: close`.
        @Test func aStoppingGatewayAnswersEveryKeepAliveRequest() async throws {
            let gateway = try await GatewayProcess.start(instance: "test-drain-\(UInt16.random(in: 0...9999))")
            defer { gateway.process.kill() }
            let port = gateway.port
            let health = "GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n"
            let outcomes = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await RawConnection.requestUntilClosed(port: port, request: health)
                    }
                }
                try await Task.sleep(for: .milliseconds(500))
                gateway.process.kill()
                var all: [(Int, String)] = []
                for try await outcome in group { all.append(outcome) }
                return all
            }
            #expect(outcomes.allSatisfy { $0.1 == "closed" }, "\(outcomes.map(\.1))")
            #expect(outcomes.allSatisfy { $0.0 > 1 })
        }

        @Test func theOpenAPIDocumentIsServedAndCoversEveryRoute() async throws {
            let gateway = try await GatewayProcess.start(instance: "test-openapi-\(UInt16.random(in: 0...9999))")
            defer { gateway.process.kill() }
            let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("docs/openapi.yaml")
            let expected = try [UInt8](Data(contentsOf: file))
            let served = try await SystemClient.send(gateway, "GET", "/openapi.yaml")
            #expect(served.status == 200)
            #expect(served.headers["content-type"] == "application/yaml")
            #expect(served.body == expected)

            let metrics = SystemClient.text(try await SystemClient.send(gateway, "GET", "/metrics"))
            let missing = gateway.process.log.split(separator: "\n").filter {
                $0.contains("no entry in docs/openapi.yaml")
            }
            #expect(
                metrics.contains("gateway_undocumented_routes 0"),
                "routes without a docs/openapi.yaml entry: \(missing)")
        }
    }
}
