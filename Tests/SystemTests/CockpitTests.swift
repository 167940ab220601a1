import Foundation
import HTTPClient
import HTTPServer
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// `POST /v1/cockpit` through the gateway and the Research service to a loopback Underlying speaking its
    /// `/api/watchlists/cockpit` surface: the body's tickers normalized, the engine's rows read as the original
    /// reads them, its failures a 502 naming its status, and Underlying switched off a 503 saying so.
    @Suite struct CockpitTests {
        /// Ranks the tickers it is sent by the sum of their letters, under `cockpit` with the engine's own spellings.
        static func underlying(failing: Bool = false) throws -> FakeUpstream {
            try FakeUpstream { request in
                guard request.method == "POST", request.path == "/api/watchlists/cockpit" else {
                    return .error(404, "not found")
                }
                if failing { return .json(500, raw: Array(#"{"detail":"engine restarting"}"#.utf8)) }
                let tickers = (SystemClient.jsonObject(request.body)["tickers"] as? [String]) ?? []
                let scored = tickers.map { ($0, $0.unicodeScalars.reduce(0) { $0 + Int($1.value) }) }
                    .sorted { $0.1 > $1.1 }
                let rows: [[String: Any]] = scored.map { ticker, score in
                    [
                        "symbol": ticker.lowercased(), "total": Double(score) / 10, "regime": "trend",
                        "ridge_growth": ["state": "rising", "score": 2], "flow_compass": score % 7,
                    ]
                }
                let body = try? JSONSerialization.data(withJSONObject: [
                    "cockpit": rows, "meta": ["count": rows.count, "engine": "test"],
                ])
                return .json(200, raw: Array(body ?? Data()))
            }
        }

        static func post(_ gateway: GatewayProcess, _ json: String) async throws -> HTTPClientResponse {
            try await SystemClient.send(gateway, "POST", "/v1/cockpit", json: json)
        }

        @Test func ranksThroughUnderlying() async throws {
            let underlying = try Self.underlying()
            let research = try await ServiceProcess.start("Research", extra: ["UNDERLYING_URL": underlying.baseURL])
            let gateway = try await GatewayProcess.start(
                instance: "test-cockpit-\(UInt16.random(in: 0...9999))", extra: ["AGENT_BUDGET_MS": "8000"])
            defer {
                research.kill()
                gateway.process.kill()
            }
            for refused in ["{", #"{"tickers":[]}"#, #"{"tickers":[7,"??"]}"#, #"{"tickers":"MSFT"}"#] {
                let response = try await Self.post(gateway, refused)
                #expect(
                    response.status == 400 && SystemClient.errorMessage(response) == "tickers required (1–10 symbols)",
                    "\(refused)")
            }
            #expect(underlying.requests.isEmpty)

            // The first command may wait for the consumer group.
            let ask = #"{"tickers":[" msft","aapl","MSFT",3,"TOOLONGX","nvda"]}"#
            var ranked = try await Self.post(gateway, ask)
            for _ in 0..<20 where ranked.status == 504 { ranked = try await Self.post(gateway, ask) }
            #expect(ranked.status == 200, "\(SystemClient.text(ranked))")
            let sent = try #require(underlying.requests.last)
            #expect(SystemClient.jsonObject(sent.body)["tickers"] as? [String] == ["MSFT", "AAPL", "NVDA"])
            let body = SystemClient.json(ranked)
            #expect(body["tickers"] as? [String] == ["MSFT", "AAPL", "NVDA"])
            #expect(body["sourceUrl"] as? String == underlying.baseURL + "/")
            #expect(((body["meta"] as? [String: Any])?["count"] as? NSNumber)?.intValue == 3)
            let rows = try #require(body["rows"] as? [[String: Any]])
            let expected = ["MSFT", "AAPL", "NVDA"].map { ($0, $0.unicodeScalars.reduce(0) { $0 + Int($1.value) }) }
                .sorted { $0.1 > $1.1 }
            #expect(rows.compactMap { $0["ticker"] as? String } == expected.map(\.0))
            #expect(rows.compactMap { ($0["rank"] as? NSNumber)?.doubleValue } == [1, 2, 3])
            #expect(rows.compactMap { ($0["score"] as? NSNumber)?.doubleValue } == expected.map { Double($0.1) / 10 })
            #expect(rows.allSatisfy { $0["lane"] as? String == "trend" && $0["ridge"] as? String == "rising" })
            #expect(rows.compactMap { ($0["flow"] as? NSNumber)?.intValue } == expected.map { $0.1 % 7 })
            #expect(rows.allSatisfy { $0["auction"] == nil })
            await underlying.shutdown()
        }

        @Test func anEngineFailureIsA502AndNoEngineA503() async throws {
            let underlying = try Self.underlying(failing: true)
            var research = try await ServiceProcess.start("Research", extra: ["UNDERLYING_URL": underlying.baseURL])
            let gateway = try await GatewayProcess.start(
                instance: "test-cockpit-\(UInt16.random(in: 0...9999))", extra: ["AGENT_BUDGET_MS": "8000"])
            defer { gateway.process.kill() }
            var failed = try await Self.post(gateway, #"{"tickers":["KO"]}"#)
            for _ in 0..<20 where failed.status == 504 { failed = try await Self.post(gateway, #"{"tickers":["KO"]}"#) }
            #expect(failed.status == 502, "\(SystemClient.text(failed))")
            #expect(SystemClient.json(failed)["error"] as? String == "underlying cockpit 500")
            #expect(SystemClient.json(failed)["detail"] as? String == #"{"detail":"engine restarting"}"#)
            #expect(underlying.requests.count == 1)
            _ = await research.stop()
            await underlying.shutdown()

            research = try await ServiceProcess.start("Research", extra: ["UNDERLYING_URL": "off"])
            defer { research.kill() }
            var off = try await Self.post(gateway, #"{"tickers":["KO"]}"#)
            for _ in 0..<20 where off.status != 503 { off = try await Self.post(gateway, #"{"tickers":["KO"]}"#) }
            #expect(off.status == 503)
            #expect(
                SystemClient.errorMessage(off) == "cockpit needs UNDERLYING_URL (the Underlying service) and it is off")
        }
    }
}
