import Foundation
import HTTPClient
import HTTPServer
import Redis
import Runtime
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// `GET /v1/environment/{sector}` through the whole system with loopback fakes of FRED's `series/observations`,
    /// Exa's `/search` and OpenRouter's chat completions: a miss needs an identity and is written once; a hit is
    /// free, needs no identity and calls no upstream; the cached brief is the rating's macro evidence for a ticker of
    /// that sector.
    @Suite struct EnvironmentTests {
        static func fred() throws -> FakeUpstream {
            try FakeUpstream { request in
                guard request.path == "/series/observations", request.query["api_key"] == "fk",
                    request.query["sort_order"] == "desc", request.query["file_type"] == "json"
                else { return .error(400, "bad request") }
                let id = request.query["series_id"] ?? ""
                let latest = ["DFF": "4.33", "CPIAUCSL": "321.5", "IPG3344S": "180.25"][id] ?? "1"
                return .json(
                    200,
                    raw: Array(
                        #"{"observations":[{"date":"2026-11-01","value":"."},{"date":"2026-10-01","value":"\#(latest)"}]}"#
                            .utf8))
            }
        }

        static func openRouter() throws -> FakeUpstream {
            try FakeUpstream { _ in
                let brief =
                    #"{"headline":"Chips ride capex","body":"Rates sit at 4.33%.\n\nDemand holds.","tailwinds":["- AI capex","• Fab subsidies"],"headwinds":["* Export rules","Tariffs"]}"#
                let body = try? JSONSerialization.data(withJSONObject: [
                    "choices": [["message": ["role": "assistant", "content": brief]]],
                    "usage": ["prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20],
                ])
                return .json(200, raw: Array(body ?? Data()))
            }
        }

        @Test func missThenFreeHitsAndTheRatingReadsIt() async throws {
            let fred = try Self.fred()
            let exa = try GraphTests.exa()
            let openRouter = try Self.openRouter()
            let redis = try await RedisClient.make(
                url: try TestEnvironment.require("REDIS_URL"), size: 1, logger: Logger(label: "t", level: .error))
            _ = try await redis.delete("mapvest:memo:v1:environment:INFORMATION TECHNOLOGY")
            _ = try await redis.delete("mapvest:rating:v1:AAPL")
            let research = try await ServiceProcess.start(
                "Research",
                extra: [
                    "FRED_BASE_URL": fred.baseURL, "FRED_API_KEY": "fk", "EXA_BASE_URL": exa.baseURL,
                    "EXA_API_KEY": "test", "OPENROUTER_BASE_URL": openRouter.baseURL, "OPENROUTER_API_KEY": "test",
                ])
            let rating = try await ServiceProcess.start(
                "Rating", extra: ["JEV_API_KEY": "", "MASSIVE_API_KEY": "", "UNDERLYING_URL": "off"])
            let gateway = try await GatewayProcess.start(instance: "test-env-\(UInt16.random(in: 0...9999))")
            defer {
                research.kill()
                rating.kill()
                gateway.process.kill()
            }
            let device = [("X-Device-Id", "env-\(UUID().uuidString)")]

            let long = try await SystemClient.send(
                gateway, "GET", "/v1/environment/\(String(repeating: "a", count: 65))")
            #expect(long.status == 400 && SystemClient.errorMessage(long) == "invalid sector")
            let unknown = try await SystemClient.send(gateway, "GET", "/v1/environment/astrology")
            #expect(unknown.status == 400 && SystemClient.errorMessage(unknown) == "unknown sector: astrology")
            var anonymous = try await SystemClient.send(gateway, "GET", "/v1/environment/tech")
            for _ in 0..<40 where anonymous.status != 400 {
                anonymous = try await SystemClient.send(gateway, "GET", "/v1/environment/tech")
            }
            #expect(
                SystemClient.errorMessage(anonymous)
                    == "X-Device-Id header (or a bearer session) required to generate a brief")
            #expect(fred.requests.isEmpty && openRouter.requests.isEmpty)

            let made = try await SystemClient.send(gateway, "GET", "/v1/environment/tech", headers: device)
            #expect(made.status == 200, "\(SystemClient.text(made))")
            #expect(made.headers["X-Environment"] == nil && made.headers["X-Research-Turn"] == nil)
            let brief = SystemClient.json(made)
            #expect(
                brief["sector"] as? String == "Information Technology"
                    && brief["headline"] as? String == "Chips ride capex")
            #expect(brief["tailwinds"] as? [String] == ["AI capex", "Fab subsidies"])
            #expect(brief["headwinds"] as? [String] == ["Export rules", "Tariffs"])
            let series = try #require(brief["series"] as? [[String: Any]])
            #expect(series.map { $0["id"] as? String } == ["DFF", "CPIAUCSL", "IPG3344S"])
            #expect(series.first?["latest"] as? Double == 4.33 && series.first?["asOf"] as? String == "2026-10-01")
            let sources = try #require(brief["sources"] as? [[String: Any]])
            #expect(
                sources.prefix(3).map { $0["url"] as? String }
                    == ["DFF", "CPIAUCSL", "IPG3344S"].map {
                        "https://fred.stlouisfed.org/series/\($0)"
                    })
            // Both searches answer the same page: cited once.
            #expect(sources.count == 4 && sources.last?["provider"] as? String == "exa")
            #expect(fred.requests.count == 3 && exa.requests.count == 2 && openRouter.requests.count == 1)

            let hit = try await SystemClient.send(gateway, "GET", "/v1/environment/Information%20Technology")
            #expect(
                hit.status == 200 && SystemClient.json(hit)["generatedAt"] as? String == brief["generatedAt"] as? String
            )
            #expect(fred.requests.count == 3 && openRouter.requests.count == 1)

            // The rating of a seed ticker of the sector lists the brief as its macro evidence.
            var rated = try await SystemClient.send(gateway, "GET", "/v1/rating/AAPL")
            for _ in 0..<40 where rated.status != 200 {
                rated = try await SystemClient.send(gateway, "GET", "/v1/rating/AAPL")
            }
            let evidence = (SystemClient.json(rated)["evidence"] as? [[String: Any]]) ?? []
            let macro = try #require(evidence.first { $0["source"] as? String == "environment_brief" })
            #expect(
                (macro["summary"] as? String)?.hasPrefix("Chips ride capex — Federal funds effective rate 4.33") == true
            )
            for fake in [fred, exa, openRouter] { await fake.shutdown() }
        }

        /// FRED configured but no `OPENROUTER_API_KEY`: a miss answers the original's 503 naming the key, before the
        /// identity rule, without reading a series; nothing is cached.
        @Test func withoutOpenRouterKey() async throws {
            let fred = try Self.fred()
            let redis = try await RedisClient.make(
                url: try TestEnvironment.require("REDIS_URL"), size: 1, logger: Logger(label: "t", level: .error))
            _ = try await redis.delete("mapvest:memo:v1:environment:UTILITIES")
            let research = try await ServiceProcess.start(
                "Research",
                extra: [
                    "FRED_BASE_URL": fred.baseURL, "FRED_API_KEY": "fk", "EXA_API_KEY": "", "OPENROUTER_API_KEY": "",
                ])
            let gateway = try await GatewayProcess.start(instance: "test-env-\(UInt16.random(in: 0...9999))")
            defer {
                research.kill()
                gateway.process.kill()
            }
            var anonymous = try await SystemClient.send(gateway, "GET", "/v1/environment/utility")
            for _ in 0..<40 where anonymous.status != 503 {
                anonymous = try await SystemClient.send(gateway, "GET", "/v1/environment/utility")
            }
            #expect(
                anonymous.status == 503
                    && SystemClient.errorMessage(anonymous) == "environment briefs need OPENROUTER_API_KEY")
            let device = [("X-Device-Id", "env-\(UUID().uuidString)")]
            let refused = try await SystemClient.send(gateway, "GET", "/v1/environment/Utilities", headers: device)
            #expect(
                refused.status == 503
                    && SystemClient.errorMessage(refused) == "environment briefs need OPENROUTER_API_KEY")
            #expect(fred.requests.isEmpty)
            #expect(try await redis.get("mapvest:memo:v1:environment:UTILITIES") == nil)
            await fred.shutdown()
        }
    }
}
