import Foundation
import HTTPClient
import HTTPServer
import Redis
import Runtime
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// `GET /v1/pulse/{ticker}` through the whole system: a graph is stored first (loopback fakes of Underlying, Exa
    /// and OpenRouter, as in GraphTests), then the pulse reads its `buys_from` buyers' statements from a loopback
    /// Massive speaking its statements wire format. A miss needs an identity and is built once; a hit is free, needs
    /// no identity and calls no upstream; the cached pulse is where the rating reads it.
    @Suite struct PulseTests {
        /// Massive's income and cash-flow statements: AMZN revenue +10 %, capex +10 %; MSFT revenue −10 %, no
        /// cash-flow rows; NFLX fails.
        static func massive() throws -> FakeUpstream {
            try FakeUpstream { request in
                let ticker = request.query["ticker"] ?? ""
                let income = request.path.hasSuffix("/income-statements")
                guard request.path.hasPrefix("/stocks/financials/v1/"), request.headers["Authorization"] == "Bearer k"
                else { return .error(404, "no") }
                let rows: String
                switch (ticker, income) {
                case ("AMZN", true):
                    rows = """
                        [{"ticker":"AMZN","period_end_date":"2025-12-31","fiscal_period":"FY","revenues":110},
                        {"ticker":"AMZN","period_end_date":"2025-09-30","fiscal_period":"Q3","revenues":30},
                        {"ticker":"AMZN","period_end_date":"2024-12-31","fiscal_period":"FY","revenues":{"value":100}}]
                        """
                case ("AMZN", false):
                    rows = """
                        [{"ticker":"AMZN","period_end_date":"2025-12-31","capital_expenditure":-55},
                        {"ticker":"AMZN","period_end_date":"2024-12-31","capital_expenditure":-50}]
                        """
                case ("MSFT", true):
                    rows = """
                        [{"ticker":"MSFT","period_end_date":"2025-06-30","revenues":90},
                        {"ticker":"MSFT","period_end_date":"2024-06-30","revenues":100}]
                        """
                case ("MSFT", false): rows = "[]"
                default: return .error(500, "upstream down")
                }
                return .json(200, raw: Array(#"{"status":"OK","request_id":"r","results":\#(rows)}"#.utf8))
            }
        }

        @Test func missThenFreeHits() async throws {
            let letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
            let t = "P" + String((0..<4).map { _ in letters.randomElement() ?? "P" })
            let bare = "Q" + String((0..<4).map { _ in letters.randomElement() ?? "Q" })
            let underlying = try FakeUpstream { _ in .json(200, raw: Array(#"{"Citations":[]}"#.utf8)) }
            let exa = try GraphTests.exa()
            let openRouter = try GraphTests.openRouter { subject in
                guard subject == t else { return "[]" }
                let url = "https://news.example.com/\(t)/largest"
                return """
                    [{"counterparty":"Amazon","ticker":"AMZN","relation":"buys_from","weight":0.6,"sourceUrl":"\(url)"},
                    {"counterparty":"Microsoft","ticker":"MSFT","relation":"buys_from","weight":0.2,"sourceUrl":"\(url)"},
                    {"counterparty":"Netflix","ticker":"NFLX","relation":"buys_from","weight":0.1,"sourceUrl":"\(url)"},
                    {"counterparty":"Intel","ticker":"INTC","relation":"competes_with","weight":0.9,"sourceUrl":"\(url)"}]
                    """
            }
            let massive = try Self.massive()
            let research = try await ServiceProcess.start(
                "Research",
                extra: [
                    "UNDERLYING_URL": underlying.baseURL, "EXA_BASE_URL": exa.baseURL, "EXA_API_KEY": "test",
                    "OPENROUTER_BASE_URL": openRouter.baseURL, "OPENROUTER_API_KEY": "test",
                    "MASSIVE_BASE_URL": massive.baseURL, "MASSIVE_API_KEY": "k",
                ])
            let gateway = try await GatewayProcess.start(instance: "test-pulse-\(UInt16.random(in: 0...9999))")
            defer {
                research.kill()
                gateway.process.kill()
            }
            let device = [("X-Device-Id", "pulse-\(UUID().uuidString)")]

            let invalid = try await SystemClient.send(gateway, "GET", "/v1/pulse/TOOLONG")
            #expect(invalid.status == 400 && SystemClient.errorMessage(invalid) == "invalid ticker")
            var anonymous = try await SystemClient.send(gateway, "GET", "/v1/pulse/\(t)")
            for _ in 0..<40 where anonymous.status != 400 {
                anonymous = try await SystemClient.send(gateway, "GET", "/v1/pulse/\(t)")
            }
            #expect(
                anonymous.status == 400
                    && SystemClient.errorMessage(anonymous)
                        == "X-Device-Id header (or a bearer session) required to generate a pulse"
            )
            #expect(massive.requests.isEmpty)

            let graph = try await SystemClient.send(gateway, "GET", "/v1/graph/\(t)", headers: device)
            #expect(
                graph.status == 200 && SystemClient.json(graph)["count"] as? Int == 4, "\(SystemClient.text(graph))")

            // The miss, built: three buyers looked at (the competitor is not one), NFLX unresolved at weight 0.
            let made = try await SystemClient.send(gateway, "GET", "/v1/pulse/\(t.lowercased())", headers: device)
            #expect(made.status == 200, "\(SystemClient.text(made))")
            #expect(made.headers["X-Pulse"] == nil && made.headers["X-Research-Turn"] == nil)
            let pulse = SystemClient.json(made)
            let buyers = try #require(pulse["buyers"] as? [[String: Any]])
            #expect(buyers.map { $0["ticker"] as? String } == ["AMZN", "MSFT", "NFLX"])
            let value = try #require(pulse["pulse"] as? Double)
            #expect(abs(value - 5) < 1e-9 && pulse["interpretation"] as? String == "expanding")
            #expect(abs((buyers[0]["weight"] as? Double ?? 0) - 0.75) < 1e-9)
            #expect(abs((buyers[0]["revenueYoY"] as? Double ?? 0) - 10) < 1e-9)
            #expect(abs((buyers[0]["capexYoY"] as? Double ?? 0) - 10) < 1e-9)
            #expect(abs((buyers[1]["revenueYoY"] as? Double ?? 0) + 10) < 1e-9 && buyers[1]["capexYoY"] == nil)
            #expect(buyers[2]["weight"] as? Double == 0 && buyers[2]["revenueYoY"] == nil)
            let sources = try #require(pulse["sources"] as? [[String: Any]])
            #expect(sources.count == 3 && sources.allSatisfy { $0["provider"] as? String == "massive" })
            #expect(sources.allSatisfy { ($0["url"] as? String)?.hasPrefix(massive.baseURL) == true })
            #expect(massive.requests.count == 6)

            // A hit: free, no identity, no upstream called; cached where the rating reads its summary.
            let hit = try await SystemClient.send(gateway, "GET", "/v1/pulse/\(t)")
            #expect(
                hit.status == 200 && SystemClient.json(hit)["generatedAt"] as? String == pulse["generatedAt"] as? String
            )
            #expect(massive.requests.count == 6)
            let redis = try await RedisClient.make(
                url: try TestEnvironment.require("REDIS_URL"), size: 1, logger: Logger(label: "t", level: .error))
            let cached = try #require(try await redis.get("mapvest:memo:v1:pulse:\(t)"))
            let summary = (SystemClient.jsonObject(cached)["summary"] as? String) ?? ""
            #expect(summary.hasPrefix("Demand pulse +5.0% YoY across buyers, expanding: AMZN (revenue +10.0%"))

            // The rating reads the cached pulse as its demand evidence (Jev unset: the evidence is still listed).
            let rating = try await ServiceProcess.start(
                "Rating", extra: ["JEV_API_KEY": "", "MASSIVE_API_KEY": "", "UNDERLYING_URL": underlying.baseURL])
            defer { rating.kill() }
            var rated = try await SystemClient.send(gateway, "GET", "/v1/rating/\(t)")
            for _ in 0..<40 where rated.status != 200 {
                rated = try await SystemClient.send(gateway, "GET", "/v1/rating/\(t)")
            }
            let evidence = (SystemClient.json(rated)["evidence"] as? [[String: Any]]) ?? []
            let demand = try #require(evidence.first { $0["source"] as? String == "demand_pulse" })
            #expect((demand["summary"] as? String)?.hasPrefix("Demand pulse +5.0% YoY") == true)

            // No stored graph: an unknown pulse (null, not zero), built without any statement request.
            let none = try await SystemClient.send(gateway, "GET", "/v1/pulse/\(bare)", headers: device)
            let unknown = SystemClient.json(none)
            #expect(none.status == 200 && unknown["interpretation"] as? String == "unknown")
            #expect(unknown["pulse"] is NSNull && (unknown["buyers"] as? [Any])?.isEmpty == true)
            #expect(SystemClient.text(none).contains(#""pulse":null"#) && massive.requests.count == 6)

            for fake in [underlying, exa, openRouter, massive] { await fake.shutdown() }
        }

        /// Buyers to look up but no `MASSIVE_API_KEY`: the documented 503 naming the key; nothing is cached.
        @Test func withoutMassiveKey() async throws {
            let letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
            let t = "R" + String((0..<4).map { _ in letters.randomElement() ?? "R" })
            let underlying = try FakeUpstream { _ in .json(200, raw: Array(#"{"Citations":[]}"#.utf8)) }
            let exa = try GraphTests.exa()
            let openRouter = try GraphTests.openRouter { subject in
                """
                [{"counterparty":"Amazon","ticker":"AMZN","relation":"buys_from","weight":0.6,\
                "sourceUrl":"https://news.example.com/\(subject)/largest"}]
                """
            }
            let research = try await ServiceProcess.start(
                "Research",
                extra: [
                    "UNDERLYING_URL": underlying.baseURL, "EXA_BASE_URL": exa.baseURL, "EXA_API_KEY": "test",
                    "OPENROUTER_BASE_URL": openRouter.baseURL, "OPENROUTER_API_KEY": "test", "MASSIVE_API_KEY": "",
                ])
            let gateway = try await GatewayProcess.start(instance: "test-pulse-\(UInt16.random(in: 0...9999))")
            defer {
                research.kill()
                gateway.process.kill()
            }
            let device = [("X-Device-Id", "pulse-\(UUID().uuidString)")]
            var graph = try await SystemClient.send(gateway, "GET", "/v1/graph/\(t)", headers: device)
            for _ in 0..<40 where graph.status != 200 {
                graph = try await SystemClient.send(gateway, "GET", "/v1/graph/\(t)", headers: device)
            }
            #expect(
                graph.status == 200 && SystemClient.json(graph)["count"] as? Int == 1, "\(SystemClient.text(graph))")
            let refused = try await SystemClient.send(gateway, "GET", "/v1/pulse/\(t)", headers: device)
            #expect(
                refused.status == 503
                    && SystemClient.errorMessage(refused)
                        == "demand pulse needs MASSIVE_API_KEY to read its buyers' statements"
            )
            let anonymous = try await SystemClient.send(gateway, "GET", "/v1/pulse/\(t)")
            #expect(anonymous.status == 400)
            for fake in [underlying, exa, openRouter] { await fake.shutdown() }
        }
    }
}
