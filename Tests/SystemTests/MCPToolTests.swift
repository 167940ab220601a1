import Foundation
import HTTPClient
import HTTPServer
import Synchronization
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// Mapvest's MCP server through the real gateway: its own tools answered by the real services over Kafka, the
    /// lattice relay against a loopback fake hub, the per-address allowance shared by two replicas through Redis,
    /// and the official MCP Python SDK as a client.
    @Suite struct MCPToolTests {
        struct ToolResult {
            let text: String
            let isError: Bool
            let result: [String: Any]
            var json: [String: Any] { SystemClient.jsonObject(Array(text.utf8)) }
        }

        static func rpc(
            _ gateway: GatewayProcess, _ method: String, params: String = "{}", path: String = "/mcp",
            headers: [(String, String)] = []
        ) async throws -> (status: Int, body: [String: Any], response: HTTPClientResponse) {
            let body = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"\(method)\",\"params\":\(params)}"
            let response = try await SystemClient.send(gateway, "POST", path, json: body, headers: headers)
            return (response.status, SystemClient.json(response), response)
        }

        static func call(
            _ gateway: GatewayProcess, _ tool: String, _ arguments: String, headers: [(String, String)] = []
        ) async throws -> ToolResult {
            let (status, body, _) = try await rpc(
                gateway, "tools/call", params: "{\"name\":\"\(tool)\",\"arguments\":\(arguments)}", headers: headers)
            #expect(status == 200)
            let result = try #require(body["result"] as? [String: Any], "no result in \(body)")
            let text = ((result["content"] as? [[String: Any]])?.first?["text"] as? String) ?? ""
            return ToolResult(text: text, isError: result["isError"] as? Bool == true, result: result)
        }

        static func constellation(_ result: ToolResult) -> [String: Any] {
            ((result.result["_meta"] as? [String: Any])?["constellation"] as? [String: Any]) ?? [:]
        }

        static func yahoo() throws -> FakeUpstream { try NearbyRatingRoutesTests.yahoo() }

        @Test func toolsAnswerThroughTheGatewayAndServices() async throws {
            let yahoo = try Self.yahoo()
            let upstreams = [
                "MARKET_DATA_PRIMARY": "yahoo", "YAHOO_BASE_URL": yahoo.baseURL, "MASSIVE_API_KEY": "",
                "JEV_API_KEY": "", "UNDERLYING_URL": "http://127.0.0.1:1",
            ]
            let rating = try await ServiceProcess.start("Rating", extra: upstreams)
            let gateway = try await GatewayProcess.start(
                instance: "test-mcp-\(UInt16.random(in: 0...9999))",
                extra: ["MCP_PUBLIC_ORIGIN": "https://MCP.example.test:8443/not/this/path"])
            defer {
                rating.kill()
                gateway.process.kill()
            }

            let initialize = try await Self.rpc(gateway, "initialize", params: "{\"protocolVersion\":\"2025-03-26\"}")
            let info = try #require(initialize.body["result"] as? [String: Any])
            #expect(info["protocolVersion"] as? String == "2025-03-26")
            #expect((info["serverInfo"] as? [String: Any])?["name"] as? String == "mapvest")

            let listed = try await Self.rpc(gateway, "tools/list")
            let tools = try #require((listed.body["result"] as? [String: Any])?["tools"] as? [[String: Any]])
            #expect(
                tools.map { $0["name"] as? String } == [
                    "search_intent", "rating", "brand_lookup", "ask_lattice_animals",
                ])
            let annotations = tools.map { $0["annotations"] as? [String: Bool] ?? [:] }
            #expect(annotations.map { $0["readOnlyHint"] } == [true, true, true, true])
            #expect(annotations.map { $0["openWorldHint"] } == [false, false, false, true])
            #expect(
                tools.allSatisfy { ($0["inputSchema"] as? [String: Any])?["additionalProperties"] as? Bool == false })

            // The manifest advertises the configured origin (never the request's Host) and the configured hub.
            let manifest = try await SystemClient.send(gateway, "GET", "/.well-known/mcp.json")
            let card = SystemClient.json(manifest)
            #expect(manifest.status == 200 && manifest.headers["Cache-Control"] == "public, max-age=300")
            #expect(card["endpoint"] as? String == "https://mcp.example.test:8443/mcp")
            #expect(
                (card["peers"] as? [[String: Any]])?.first?["endpoint"] as? String
                    == "https://mcp.example.test:8443/mcp/lattice")
            let alias = try await SystemClient.send(gateway, "GET", "/.well-known/mcp/server-card.json")
            #expect(SystemClient.json(alias)["name"] as? String == "mapvest")

            // Failures on MCP paths are JSON-RPC shaped.
            let get = try await SystemClient.send(gateway, "GET", "/mcp")
            #expect(get.status == 405 && get.headers["Allow"] == "POST")
            #expect((SystemClient.json(get)["error"] as? [String: Any])?["code"] as? Int == -32000)
            let garbage = try await SystemClient.send(gateway, "POST", "/mcp/", json: "not json")
            #expect(
                garbage.status == 400
                    && (SystemClient.json(garbage)["error"] as? [String: Any])?["code"] as? Int == -32600)
            let huge = try await SystemClient.send(
                gateway, "POST", "/mcp",
                json:
                    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"pad\":\"\(String(repeating: "x", count: 70_000))\"}"
            )
            #expect(
                huge.status == 400 && (SystemClient.json(huge)["error"] as? [String: Any])?["code"] as? Int == -32600)
            let unknown = try await Self.rpc(gateway, "tools/call", params: "{\"name\":\"quote\"}")
            #expect((unknown.body["error"] as? [String: Any])?["code"] as? Int == -32602)

            // brand_lookup: exact, contained, not found, and strict arguments that never echo a value.
            let exact = try await Self.call(gateway, "brand_lookup", "{\"brand\":\"  McDonald\u{2019}s \"}")
            #expect(
                !exact.isError && exact.json["found"] as? Bool == true && exact.json["confidence"] as? String == "high")
            let match = try #require(exact.json["match"] as? [String: Any])
            #expect(
                match["kind"] as? String == "exact" && match["ticker"] as? String == "MCD"
                    && match["exchange"] as? String == "NYSE")
            #expect((exact.json["sources"] as? [[String: Any]])?.first?["provider"] as? String == "manual")
            #expect(
                Self.constellation(exact)["server"] as? String == "mapvest"
                    && Self.constellation(exact)["hop"] as? Int == 0)
            let contained = try await Self.call(gateway, "brand_lookup", "{\"brand\":\"lunch at burger king today\"}")
            #expect((contained.json["match"] as? [String: Any])?["kind"] as? String == "contained")
            #expect(contained.json["confidence"] as? String == "medium" && contained.json["note"] is String)
            let missing = try await Self.call(gateway, "brand_lookup", "{\"brand\":\"Zqxv Nonesuch Holdings\"}")
            #expect(missing.json["found"] as? Bool == false && missing.json["match"] is NSNull)
            #expect(
                missing.json["confidence"] as? String == "low" && (missing.json["sources"] as? [Any])?.isEmpty == true)
            let extra = try await Self.call(gateway, "brand_lookup", "{\"brand\":\"secret-value\",\"sneaky\":1}")
            #expect(
                extra.isError
                    && extra.text.hasPrefix("invalid arguments for brand_lookup: arguments: Unrecognized key(s)"))
            #expect(!extra.text.contains("secret-value"))
            let typed = try await Self.call(gateway, "brand_lookup", "{\"brand\":12345}")
            #expect(
                typed.isError
                    && typed.text == "invalid arguments for brand_lookup: brand: Expected string, received number")

            // search_intent: a cashtag (nothing cited → low) and a seed brand (the seed cited → high).
            let cashtag = try await Self.call(gateway, "search_intent", "{\"query\":\"  $aapl  \"}")
            #expect(!cashtag.isError, "\(cashtag.text)")
            #expect(cashtag.json["intent"] as? String == "ticker" && cashtag.json["query"] as? String == "$aapl")
            #expect((cashtag.json["resolved"] as? [String: Any])?["symbol"] as? String == "AAPL")
            #expect(cashtag.json["confidence"] as? String == "low" && cashtag.json["note"] is String)
            let brand = try await Self.call(gateway, "search_intent", "{\"query\":\"Starbucks\"}")
            #expect(
                brand.json["intent"] as? String == "brand"
                    && (brand.json["resolved"] as? [String: Any])?["symbol"] as? String == "SBUX")
            #expect(brand.json["confidence"] as? String == "high")
            #expect((brand.json["sources"] as? [[String: Any]])?.map { $0["provider"] as? String } == ["manual"])

            // rating with no Jev key: passed through as no rating, with the note; the quote summary withheld.
            let rated = try await Self.call(gateway, "rating", "{\"ticker\":\"$mcd\"}")
            #expect(!rated.isError, "\(rated.text)")
            #expect(
                rated.json["ticker"] as? String == "MCD" && rated.json["status"] as? String == "insufficient_signal")
            #expect(rated.json["rating"] is NSNull && (rated.json["note"] as? String)?.contains("not a hold") == true)
            #expect(rated.json["disclaimer"] as? String == "AI-generated research signal, not investment advice.")
            let evidence = rated.json["evidence"] as? [[String: Any]] ?? []
            #expect(evidence.contains { $0["source"] as? String == "quote" })
            #expect(
                evidence.filter { $0["source"] as? String == "quote" }.allSatisfy {
                    $0["summary"] as? String
                        == "withheld: restates licensed market data, which is not redistributed here"
                })
            let badTicker = try await Self.call(gateway, "rating", "{\"ticker\":\"1ABC\"}")
            #expect(badTicker.isError && badTicker.text.hasPrefix("invalid ticker"))
        }

        @Test func aSlowRatingIsCutOffAtSevenSecondsAndLandsInTheCache() async throws {
            let ticker = NearbyRatingRoutesTests.randomTicker()
            let yahoo = try Self.yahoo()
            let calm = try NearbyRatingRoutesTests.jev()
            // Jev answers after 7.3 s: the rating lands past the tool's 7 s, inside the engine's 8 s for Jev.
            let jev = try FakeUpstream { request in
                try? await Task.sleep(for: .milliseconds(7300))
                let answer = try? await testHTTPClient.execute(
                    HTTPClientRequest(
                        method: "POST", url: calm.baseURL + request.path,
                        headers: [("Content-Type", "application/json")],
                        body: request.body))
                return answer.map { .json($0.status, raw: $0.body) } ?? .error(502, "jev fake down")
            }
            let underlying = try FakeUpstream { request in
                guard request.path == "/api/prism/\(ticker)/summary" else { return .error(404, "not stored") }
                return .json(
                    200,
                    raw: Array(
                        #"{"ticker":"X","recommendation":{"action":"buy","strength":"normal","conviction":0.6,"one_line":"Buy"}}"#
                            .utf8))
            }
            let rating = try await ServiceProcess.start(
                "Rating",
                extra: [
                    "MARKET_DATA_PRIMARY": "yahoo", "YAHOO_BASE_URL": yahoo.baseURL, "MASSIVE_API_KEY": "",
                    "JEV_API_KEY": "test-jev", "JEV_BASE_URL": jev.baseURL, "UNDERLYING_URL": underlying.baseURL,
                ])
            let gateway = try await GatewayProcess.start(instance: "test-mcp-slow-\(UInt16.random(in: 0...9999))")
            defer {
                rating.kill()
                gateway.process.kill()
            }
            // Warm the consumer group with a cheap command first, so the timed call measures the rating alone.
            _ = try await Self.call(gateway, "search_intent", "{\"query\":\"$warm\"}")

            let first = try await Self.call(gateway, "rating", "{\"ticker\":\"\(ticker)\"}")
            #expect(
                first.isError && first.text.hasPrefix("rating for \(ticker) did not finish within 7 s"), "\(first.text)"
            )
            let jevCalls = await jev.waitForRequests(1).count
            try await Task.sleep(for: .seconds(3))
            let second = try await Self.call(gateway, "rating", "{\"ticker\":\"\(ticker)\"}")
            #expect(!second.isError && second.json["status"] as? String == "ok", "\(second.text)")
            #expect(jev.requestCount == jevCalls, "the second call was computed again instead of served from the cache")
        }

        /// A loopback lattice hub: `tools/call` answers as an event stream, `tools/list` as JSON.
        static func lattice() throws -> FakeUpstream {
            try FakeUpstream { request in
                let message = SystemClient.jsonObject(request.body)
                guard let id = message["id"] as? Int else { return .empty(202) }
                if message["method"] as? String == "tools/call" {
                    let reply =
                        "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"the field says hello\"}]}}"
                    return .text(200, "event: message\ndata: \(reply)\n\n", contentType: "text/event-stream")
                }
                let reply =
                    "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"result\":{\"tools\":[{\"name\":\"ask_the_minds\",\"inputSchema\":{\"type\":\"object\"}}]}}"
                return .json(200, raw: Array(reply.utf8))
            }
        }

        @Test func theLatticeRelayKeepsTheHopRule() async throws {
            let hub = try Self.lattice()
            let gateway = try await GatewayProcess.start(
                instance: "test-mcp-lattice-\(UInt16.random(in: 0...9999))",
                extra: ["LATTICE_MCP_URL": hub.baseURL + "/mcp", "MCP_ALLOW_LOCAL": "1"])
            defer { gateway.process.kill() }

            let asked = try await Self.call(
                gateway, "ask_lattice_animals", "{\"question\":\"who are you?\",\"to\":\"field\"}",
                headers: [("x-mcp-path", "reflect")])
            #expect(!asked.isError && asked.text == "the field says hello")
            let outbound = try #require(hub.requests.first)
            #expect(hub.requestCount == 1 && outbound.path == "/mcp")
            #expect(outbound.headers["x-mcp-hop"] == "1" && outbound.headers["x-lattice-hop"] == "1")
            #expect(outbound.headers["x-mcp-path"] == "reflect>mapvest")
            let params = SystemClient.jsonObject(outbound.body)["params"] as? [String: Any] ?? [:]
            #expect(params["name"] as? String == "ask_the_minds")
            #expect(params["arguments"] as? [String: String] == ["question": "who are you?", "to": "field"])
            #expect(Self.constellation(asked)["path"] as? [String] == ["reflect", "mapvest"])

            // At hop 2 the relay tool is refused before anything goes out; bad arguments never go out either.
            let deep = try await Self.call(
                gateway, "ask_lattice_animals", "{\"question\":\"again?\"}", headers: [("x-mcp-hop", "2")])
            #expect(deep.isError && deep.text.hasPrefix("too-deep"))
            let empty = try await Self.call(
                gateway, "ask_lattice_animals", "{\"question\":\"   \",\"to\":\"everyone\"}")
            #expect(empty.isError && empty.text.hasPrefix("invalid arguments for ask_lattice_animals: question:"))
            #expect(hub.requestCount == 1)

            // The hub's own MCP, relayed one hop deeper; an unknown peer is a JSON-RPC 404.
            let relayed = try await Self.rpc(gateway, "tools/list", path: "/mcp/LATTICE")
            #expect(relayed.status == 200 && relayed.body["id"] as? Int == 7)
            #expect(
                ((relayed.body["result"] as? [String: Any])?["tools"] as? [[String: Any]])?.first?["name"] as? String
                    == "ask_the_minds")
            #expect(hub.requestCount == 2 && hub.lastRequest?.headers["x-mcp-hop"] == "1")
            let tooDeep = try await Self.rpc(
                gateway, "tools/list", path: "/mcp/lattice", headers: [("x-lattice-hop", "5")])
            #expect((tooDeep.body["error"] as? [String: Any])?["code"] as? Int == -32001 && hub.requestCount == 2)
            let stranger = try await Self.rpc(gateway, "tools/list", path: "/mcp/stranger")
            #expect(stranger.status == 404 && (stranger.body["error"] as? [String: Any])?["code"] as? Int == -32000)

            // Without MCP_ALLOW_LOCAL a plain-http hub is not configured: said so, never guessed, hidden from the manifest.
            let strict = try await GatewayProcess.start(
                instance: "test-mcp-strict-\(UInt16.random(in: 0...9999))",
                extra: ["LATTICE_MCP_URL": hub.baseURL + "/mcp"])
            defer { strict.process.kill() }
            let refused = try await Self.call(strict, "ask_lattice_animals", "{\"question\":\"hello?\"}")
            #expect(refused.isError && refused.text == "the lattice animals did not answer (not-configured)")
            let relayRefused = try await Self.rpc(strict, "ping", path: "/mcp/lattice")
            #expect(
                (relayRefused.body["error"] as? [String: Any])?["message"] as? String
                    == "lattice is not configured on this site")
            let card = SystemClient.json(try await SystemClient.send(strict, "GET", "/.well-known/mcp.json"))
            #expect((card["peers"] as? [Any])?.isEmpty == true && hub.requestCount == 2)
        }

        @Test func aSlowHubIsWaitedForLongerThanAnIdleConnectionLasts() async throws {
            // The lattice animals take 5 to 20 s; the relay waits up to 25 s and the connection stays open meanwhile.
            let hub = try Self.lattice()
            let fast = hub.baseURL
            let slow = try FakeUpstream { request in
                try? await Task.sleep(for: .seconds(13))
                let answer = try? await testHTTPClient.execute(
                    HTTPClientRequest(
                        method: "POST", url: fast + request.path, headers: [("Content-Type", "application/json")],
                        body: request.body))
                return answer.map { HTTPResponse(status: $0.status, headers: $0.headers.pairs, body: $0.body) }
                    ?? .error(502, "hub fake down")
            }
            let gateway = try await GatewayProcess.start(
                instance: "test-mcp-slowhub-\(UInt16.random(in: 0...9999))",
                extra: ["LATTICE_MCP_URL": slow.baseURL + "/mcp", "MCP_ALLOW_LOCAL": "1"])
            defer { gateway.process.kill() }
            let body =
                #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask_lattice_animals","arguments":{"question":"slowly?"}}}"#
            let response = try await testHTTPClient.execute(
                HTTPClientRequest(
                    method: "POST", url: gateway.baseURL + "/mcp", headers: [("Content-Type", "application/json")],
                    body: Array(body.utf8), timeout: .seconds(40)))
            let result = SystemClient.json(response)["result"] as? [String: Any]
            #expect(response.status == 200 && result?["isError"] == nil)
            #expect((result?["content"] as? [[String: Any]])?.first?["text"] as? String == "the field says hello")
        }

        @Test func theAllowanceIsSharedByReplicasAndTheGlobalLimiterStillCounts() async throws {
            let suffix = UInt16.random(in: 0...9999)
            let one = try await GatewayProcess.start(instance: "test-mcp-rl-a-\(suffix)", limits: true)
            let two = try await GatewayProcess.start(instance: "test-mcp-rl-b-\(suffix)", limits: true)
            defer {
                one.process.kill()
                two.process.kill()
            }
            let from = [
                ("X-Forwarded-For", "10.9.8.7, 198.51.\(UInt8.random(in: 0...255)).\(UInt8.random(in: 1...254))")
            ]
            for i in 0..<40 {
                let result = try await Self.call(
                    i.isMultiple(of: 2) ? one : two, "brand_lookup", "{\"brand\":\"starbucks\"}", headers: from)
                #expect(!result.isError, "call \(i + 1): \(result.text)")
            }
            let limited = try await Self.call(one, "brand_lookup", "{\"brand\":\"starbucks\"}", headers: from)
            #expect(limited.isError && limited.text.hasPrefix("rate-limited:"))
            let relay = try await Self.rpc(two, "ping", path: "/mcp/lattice", headers: from)
            #expect((relay.body["error"] as? [String: Any])?["code"] as? Int == -32002)
            #expect(relay.response.headers["X-RateLimit-Limit"] == "300")
            // Another address is not affected.
            let other = try await Self.call(
                one, "brand_lookup", "{\"brand\":\"starbucks\"}", headers: [("X-Forwarded-For", "203.0.113.77")])
            #expect(!other.isError)

            // The global limiter counts MCP paths too, and its 429 there is JSON-RPC shaped.
            var last: HTTPClientResponse?
            for _ in 0..<300 {
                last = try await SystemClient.send(one, "GET", "/.well-known/mcp.json", headers: from)
                if last?.status == 429 { break }
            }
            let rejected = try #require(last)
            #expect(rejected.status == 429 && rejected.headers["Retry-After"] != nil)
            let error = SystemClient.json(rejected)["error"] as? [String: Any]
            #expect(SystemClient.json(rejected)["jsonrpc"] as? String == "2.0" && error?["code"] as? Int == -32002)
        }

        static let python = ProcessInfo.processInfo.environment["MCP_PYTHON"].flatMap {
            FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil
        }
        static let pythonPresent: Bool = {
            if python == nil {
                print(
                    "MCPToolTests SDK client skipped: MCP_PYTHON is unset (scripts/lib/py-mcp.sh did not install the SDK)"
                )
            }
            return python != nil
        }()

        @Test(.enabled(if: pythonPresent, "the official MCP Python SDK is not installed (MCP_PYTHON unset)"))
        func theOfficialPythonSDKClientCanUseIt() async throws {
            let gateway = try await GatewayProcess.start(instance: "test-mcp-sdk-\(UInt16.random(in: 0...9999))")
            defer { gateway.process.kill() }
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("scripts/lib/mcp_sdk_client.py")
            let run = try await ChildProcess.run(
                try #require(Self.python), [script.path, gateway.baseURL + "/mcp", "Starbucks"])
            #expect(run.status == 0, "\(String(decoding: run.errors, as: UTF8.self).suffix(2000))")
            let seen = SystemClient.jsonObject(run.output)
            #expect(seen["server"] as? String == "mapvest" && seen["isError"] as? Bool == false)
            #expect(seen["tools"] as? [String] == ["search_intent", "rating", "brand_lookup", "ask_lattice_animals"])
            let text = SystemClient.jsonObject(Array(((seen["text"] as? String) ?? "").utf8))
            #expect((text["match"] as? [String: Any])?["ticker"] as? String == "SBUX")
        }
    }
}
