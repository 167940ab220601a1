import Foundation
import HTTPClient
import HTTPServer
import Postgres
import Redis
import Runtime
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// `POST /v1/memo/synthesis` through the whole system with loopback fakes of Underlying, Exa, OpenRouter (value
    /// chain, environment brief and the memo itself), FRED and Massive (statements and ratios): a miss needs an
    /// identity, gathers the four layers and is written once; a hit is free, needs no identity and calls no upstream;
    /// a rating computed afterwards lists the synthesis memo, the pulse and the environment brief as evidence.
    @Suite struct SynthesisTests {
        static let memoAnswer =
            #"{"memo":"Amazon (AMZN) buys at weight 0.60 and grows revenue 10.0% YoY.\n\nWTI sits at 71.20 dollars per barrel; P/E is 12.50.\n\nThe graph names one supplier.","bindingConstraint":"Crude at 71.20 dollars per barrel caps cash flow.","demandDurability":"Its largest buyer grows capex 10.0% YoY.","pricingPower":"It sits with the buyers."}"#

        /// One OpenRouter for the three writers, told apart by the user message's first line: `Subject:` (the value
        /// chain: two buyers and a supplier), `Sector:` (the environment brief) and `Ticker:` (the memo).
        static func openRouter(subject: String) throws -> FakeUpstream {
            try FakeUpstream { request in
                let prompt =
                    ((SystemClient.jsonObject(request.body)["messages"] as? [[String: Any]])?.last?["content"]
                        as? String) ?? ""
                let url = "https://news.example.com/\(subject)/largest"
                let content: String
                if prompt.hasPrefix("Subject: ") {
                    content = """
                        {"edges":[{"counterparty":"Amazon","ticker":"AMZN","relation":"buys_from","weight":0.6,"sourceUrl":"\(url)"},
                        {"counterparty":"Microsoft","ticker":"MSFT","relation":"buys_from","weight":0.2,"sourceUrl":"\(url)"},
                        {"counterparty":"Halliburton","ticker":"HAL","relation":"supplies","weight":0.5,"sourceUrl":"\(url)"}]}
                        """
                } else if prompt.hasPrefix("Sector: ") {
                    content =
                        #"{"headline":"Oil holds steady","body":"WTI at 71.20.\n\nRates at 4.33%.","tailwinds":["Demand"],"headwinds":["Supply"]}"#
                } else {
                    content = memoAnswer
                }
                let body = try? JSONSerialization.data(withJSONObject: [
                    "choices": [["message": ["role": "assistant", "content": content]]],
                    "usage": ["prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20],
                ])
                return .json(200, raw: Array(body ?? Data()))
            }
        }

        /// Massive: AMZN revenue and capex +10 %, MSFT revenue −10 %, the subject's latest ratio row.
        static func massive(subject: String) throws -> FakeUpstream {
            try FakeUpstream { request in
                guard request.path.hasPrefix("/stocks/financials/v1/"), request.headers["Authorization"] == "Bearer k"
                else { return .error(404, "no") }
                let ticker = request.query["ticker"] ?? ""
                let rows: String
                switch (ticker, request.path.split(separator: "/").last ?? "") {
                case (subject, "ratios"):
                    rows =
                        #"[{"ticker":"\#(subject)","date":"2026-09-30","price_to_earnings":12.5,"debt_to_equity":0.2}]"#
                case ("AMZN", "income-statements"):
                    rows =
                        #"[{"period_end_date":"2025-12-31","revenues":110},{"period_end_date":"2024-12-31","revenues":100}]"#
                case ("AMZN", "cash-flow-statements"):
                    rows =
                        #"[{"period_end_date":"2025-12-31","capital_expenditure":-55},{"period_end_date":"2024-12-31","capital_expenditure":-50}]"#
                case ("MSFT", "income-statements"):
                    rows =
                        #"[{"period_end_date":"2025-06-30","revenues":90},{"period_end_date":"2024-06-30","revenues":100}]"#
                default: rows = "[]"
                }
                return .json(200, raw: Array(#"{"status":"OK","request_id":"r","results":\#(rows)}"#.utf8))
            }
        }

        static func redis() async throws -> RedisClient {
            try await RedisClient.make(
                url: try TestEnvironment.require("REDIS_URL"), size: 1, logger: Logger(label: "t", level: .error))
        }

        @Test func missThenFreeHitsAndTheRatingCitesEveryLayer() async throws {
            let t = "XOM"
            let redis = try await Self.redis()
            for key in [
                "mapvest:memo:v1:synthesis:XOM", "mapvest:memo:v1:pulse:XOM", "mapvest:memo:v1:environment:ENERGY",
                "mapvest:rating:v1:XOM",
            ] {
                _ = try await redis.delete(key)
            }
            let underlying = try FakeUpstream { _ in .json(200, raw: Array(#"{"Citations":[]}"#.utf8)) }
            let exa = try GraphTests.exa()
            let openRouter = try Self.openRouter(subject: t)
            let fred = try EnvironmentTests.fred()
            let massive = try Self.massive(subject: t)
            let research = try await ServiceProcess.start(
                "Research",
                extra: [
                    "UNDERLYING_URL": underlying.baseURL, "EXA_BASE_URL": exa.baseURL, "EXA_API_KEY": "test",
                    "OPENROUTER_BASE_URL": openRouter.baseURL, "OPENROUTER_API_KEY": "test",
                    "FRED_BASE_URL": fred.baseURL, "FRED_API_KEY": "fk", "MASSIVE_BASE_URL": massive.baseURL,
                    "MASSIVE_API_KEY": "k",
                ])
            let gateway = try await GatewayProcess.start(instance: "test-synth-\(UInt16.random(in: 0...9999))")
            defer {
                research.kill()
                gateway.process.kill()
            }
            let device = [("X-Device-Id", "synth-\(UUID().uuidString)")]
            let body = #"{"ticker":" xom "}"#

            let invalid = try await SystemClient.send(
                gateway, "POST", "/v1/memo/synthesis", json: #"{"ticker":"TOOLONG1"}"#)
            #expect(invalid.status == 400 && SystemClient.errorMessage(invalid) == "invalid ticker")
            var anonymous = try await SystemClient.send(gateway, "POST", "/v1/memo/synthesis", json: body)
            for _ in 0..<40 where anonymous.status != 400 {
                anonymous = try await SystemClient.send(gateway, "POST", "/v1/memo/synthesis", json: body)
            }
            #expect(
                SystemClient.errorMessage(anonymous)
                    == "X-Device-Id header (or a bearer session) required to generate a memo")
            #expect(openRouter.requests.isEmpty && massive.requests.isEmpty && fred.requests.isEmpty)

            let graph = try await SystemClient.send(gateway, "GET", "/v1/graph/\(t)", headers: device)
            #expect(
                graph.status == 200 && SystemClient.json(graph)["count"] as? Int == 3, "\(SystemClient.text(graph))")
            let modelCalls = openRouter.requests.count

            // The miss: the pulse and the Energy brief are built on the way (and cached), the ratios read, one memo.
            let made = try await SystemClient.send(
                gateway, "POST", "/v1/memo/synthesis", json: body, headers: device)
            #expect(made.status == 200, "\(SystemClient.text(made))")
            #expect(made.headers["X-Synthesis"] == nil && made.headers["X-Research-Turn"] == nil)
            let memo = SystemClient.json(made)
            #expect(memo["ticker"] as? String == t)
            #expect((memo["memo"] as? String)?.hasPrefix("Amazon (AMZN) buys at weight 0.60") == true)
            #expect(memo["bindingConstraint"] as? String == "Crude at 71.20 dollars per barrel caps cash flow.")
            #expect(memo["demandDurability"] as? String == "Its largest buyer grows capex 10.0% YoY.")
            #expect(memo["pricingPower"] as? String == "It sits with the buyers.")
            let urls = ((memo["sources"] as? [[String: Any]]) ?? []).compactMap { $0["url"] as? String }
            #expect(urls.count <= 12 && Set(urls).count == urls.count)
            #expect(urls.first?.hasPrefix("https://news.example.com/\(t)/largest") == true)
            #expect(urls.contains { $0.hasPrefix(massive.baseURL) && $0.contains("income-statements") })
            #expect(urls.contains("https://fred.stlouisfed.org/series/DCOILWTICO"))
            #expect(urls.contains("\(massive.baseURL)/stocks/financials/v1/ratios?ticker=\(t)&limit=1"))
            // Environment brief then memo: two model calls; the memo's prompt carries every layer's facts.
            #expect(openRouter.requests.count == modelCalls + 2)
            let prompts = openRouter.requests.suffix(2).map {
                ((SystemClient.jsonObject($0.body)["messages"] as? [[String: Any]])?.last?["content"] as? String) ?? ""
            }
            let prompt = try #require(prompts.first { $0.hasPrefix("Ticker: \(t)") })
            for fact in [
                "Halliburton (HAL), weight 0.50", "Amazon (AMZN), weight 0.60", "revenue 10.0% YoY, capex 10.0% YoY",
                "Headline: Oil holds steady", "(DCOILWTICO)", "- P/E: 12.50", "As of 2026-09-30",
            ] {
                #expect(prompt.contains(fact), "\(fact) not in \(prompt)")
            }
            let calls = [underlying, exa, openRouter, fred, massive].map(\.requests.count)

            // A hit: free, without identity, zero upstream calls.
            let hit = try await SystemClient.send(gateway, "POST", "/v1/memo/synthesis", json: #"{"ticker":"XOM"}"#)
            #expect(
                hit.status == 200 && SystemClient.json(hit)["generatedAt"] as? String == memo["generatedAt"] as? String)
            #expect([underlying, exa, openRouter, fred, massive].map(\.requests.count) == calls)
            let cached = try #require(try await redis.get("mapvest:memo:v1:synthesis:XOM"))
            #expect(
                SystemClient.jsonObject(cached)["summary"] as? String
                    == "Binding constraint: Crude at 71.20 dollars per barrel caps cash flow.")

            // The rating computed now cites the memo, the pulse and the environment brief.
            let rating = try await ServiceProcess.start(
                "Rating", extra: ["JEV_API_KEY": "", "MASSIVE_API_KEY": "", "UNDERLYING_URL": underlying.baseURL])
            defer { rating.kill() }
            var rated = try await SystemClient.send(gateway, "GET", "/v1/rating/\(t)")
            for _ in 0..<40 where rated.status != 200 {
                rated = try await SystemClient.send(gateway, "GET", "/v1/rating/\(t)")
            }
            let evidence = (SystemClient.json(rated)["evidence"] as? [[String: Any]]) ?? []
            let cited = Dictionary(
                evidence.compactMap { e in (e["source"] as? String).map { ($0, (e["summary"] as? String) ?? "") } },
                uniquingKeysWith: { a, _ in a })
            #expect(cited["synthesis_memo"] == "Binding constraint: Crude at 71.20 dollars per barrel caps cash flow.")
            #expect(cited["demand_pulse"]?.hasPrefix("Demand pulse") == true)
            #expect(cited["environment_brief"]?.hasPrefix("Oil holds steady") == true)
            for fake in [underlying, exa, openRouter, fred, massive] { await fake.shutdown() }
        }

        /// A spent free quota answers 402 with the paywall body before any upstream call; a cached memo stays free.
        @Test func spentQuotaIs402() async throws {
            let letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
            let t = "S" + String((0..<4).map { _ in letters.randomElement() ?? "S" })
            let openRouter = try Self.openRouter(subject: t)
            let research = try await ServiceProcess.start(
                "Research",
                extra: [
                    "OPENROUTER_BASE_URL": openRouter.baseURL, "OPENROUTER_API_KEY": "test", "MASSIVE_API_KEY": "",
                    "FRED_API_KEY": "", "EXA_API_KEY": "",
                ])
            let gateway = try await GatewayProcess.start(
                instance: "test-synth-\(UInt16.random(in: 0...9999))", limits: true)
            defer {
                research.kill()
                gateway.process.kill()
            }
            let id = "synth-\(UUID().uuidString)"
            let device = [("X-Device-Id", id)]
            let body = #"{"ticker":"\#(t)"}"#
            var made = try await SystemClient.send(gateway, "POST", "/v1/memo/synthesis", json: body, headers: device)
            for _ in 0..<40 where made.status != 200 {
                made = try await SystemClient.send(gateway, "POST", "/v1/memo/synthesis", json: body, headers: device)
            }
            // No layer at all: the memo is still written (the model is told every layer is empty).
            #expect(made.status == 200, "\(SystemClient.text(made))")
            #expect((SystemClient.json(made)["sources"] as? [Any])?.isEmpty == true)

            let db = try await PostgresPool.make(
                url: try TestEnvironment.require("POSTGRES_URL"), size: 1, logger: Logger(label: "t", sink: .memory()))
            let charged = try await db.query(
                "SELECT count(*) AS n FROM gateway.usage_events WHERE device_id = \(id) AND kind = 'synthesis'"
            ).first?.int("n")
            #expect(charged == 1)
            for _ in 0..<50 {
                _ = try await db.execute(
                    "INSERT INTO gateway.usage_events (device_id, kind) VALUES (\(id), 'identify')")
            }
            await db.close()
            let calls = openRouter.requests.count
            let other = "T" + String((0..<4).map { _ in letters.randomElement() ?? "T" })
            let spent = try await SystemClient.send(
                gateway, "POST", "/v1/memo/synthesis", json: #"{"ticker":"\#(other)"}"#, headers: device)
            #expect(spent.status == 402)
            #expect(SystemClient.json(spent)["code"] as? String == "quota_exceeded")
            let free = try await SystemClient.send(gateway, "POST", "/v1/memo/synthesis", json: body, headers: device)
            #expect(free.status == 200)
            #expect(openRouter.requests.count == calls)
            await openRouter.shutdown()
        }

        /// No `OPENROUTER_API_KEY`: the original's 502 naming the key, after the identity rule and before any layer is
        /// read; nothing cached, nothing charged.
        @Test func withoutOpenRouterKey() async throws {
            let letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
            let t = "U" + String((0..<4).map { _ in letters.randomElement() ?? "U" })
            let massive = try Self.massive(subject: t)
            let research = try await ServiceProcess.start(
                "Research",
                extra: [
                    "OPENROUTER_API_KEY": "", "MASSIVE_BASE_URL": massive.baseURL, "MASSIVE_API_KEY": "k",
                ])
            let gateway = try await GatewayProcess.start(instance: "test-synth-\(UInt16.random(in: 0...9999))")
            defer {
                research.kill()
                gateway.process.kill()
            }
            let id = "synth-\(UUID().uuidString)"
            let body = #"{"ticker":"\#(t)"}"#
            var anonymous = try await SystemClient.send(gateway, "POST", "/v1/memo/synthesis", json: body)
            for _ in 0..<40 where anonymous.status != 400 {
                anonymous = try await SystemClient.send(gateway, "POST", "/v1/memo/synthesis", json: body)
            }
            #expect(anonymous.status == 400)
            let refused = try await SystemClient.send(
                gateway, "POST", "/v1/memo/synthesis", json: body, headers: [("X-Device-Id", id)])
            #expect(
                refused.status == 502 && SystemClient.errorMessage(refused) == "OPENROUTER_API_KEY missing (Doppler)")
            #expect(massive.requests.isEmpty)
            let redis = try await Self.redis()
            #expect(try await redis.get("mapvest:memo:v1:synthesis:\(t)") == nil)
            let db = try await PostgresPool.make(
                url: try TestEnvironment.require("POSTGRES_URL"), size: 1, logger: Logger(label: "t", sink: .memory()))
            let charged = try await db.query(
                "SELECT count(*) AS n FROM gateway.usage_events WHERE device_id = \(id)"
            ).first?.int("n")
            await db.close()
            #expect(charged == 0)
            await massive.shutdown()
        }
    }
}
