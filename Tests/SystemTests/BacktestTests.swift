import Contracts
import Foundation
import HTTPClient
import HTTPServer
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// `POST /v1/backtest` through a real Gateway and Briefs over a fixed synthetic history served by a Massive fake:
    /// BTA closes 10, 11, 12, 15 (+50 %), BTB 18, 16, 20, 22 (+2/9), SPY 100, 101, 102, 110 (+10 %); no history for
    /// anything else. The equal-weight basket returns (0.5 + 2/9) / 2 = 13/36.
    @Suite struct BacktestTests {
        static let closes: [String: [Double]] = [
            "BTA": [10, 11, 12, 15], "BTB": [18, 16, 20, 22], "SPY": [100, 101, 102, 110],
        ]

        static func massive() throws -> FakeUpstream {
            try FakeUpstream { request in
                let symbol = request.path.split(separator: "/").dropFirst(3).first.map(String.init) ?? ""
                if request.path.hasPrefix("/v2/aggs/ticker/"), let closes = Self.closes[symbol] {
                    let start = Date().timeIntervalSince1970 - 10 * 86_400
                    let bars = closes.enumerated().map { i, c in
                        #"{"t":\#(Int64((start + Double(i) * 86_400) * 1000)),"c":\#(c)}"#
                    }
                    return .json(200, raw: Array(#"{"status":"OK","results":[\#(bars.joined(separator: ","))]}"#.utf8))
                }
                if request.path.hasPrefix("/v2/snapshot/"), let ticker = request.path.split(separator: "/").last {
                    let body = """
                        {"status":"OK","ticker":{"ticker":"\(ticker)","name":"\(ticker) Inc.","day":{"c":100},\
                        "prevDay":{"c":99},"lastTrade":{"p":100,"t":\(Int64(Date().timeIntervalSince1970 * 1000))}}}
                        """
                    return .json(200, raw: Array(body.utf8))
                }
                return .json(404, raw: Array(#"{"status":"NOT_FOUND"}"#.utf8))
            }
        }

        @Test func aFixedHistoryGivesTheHandComputedReturn() async throws {
            let massive = try Self.massive()
            let (quotes, openRouter, jev, base) = try BriefsFakes.upstreams(BriefsFakes.Knobs())
            var env = base
            env["MASSIVE_BASE_URL"] = massive.baseURL
            env["YAHOO_BASE_URL"] = massive.baseURL
            let briefs = try await ServiceProcess.start("Briefs", extra: env)
            let gateway = try await GatewayProcess.start(instance: "test-backtest-\(UInt16.random(in: 0...9999))")
            defer {
                briefs.kill()
                gateway.process.kill()
            }
            let (auth, _) = try await BriefsFakes.signIn(gateway)
            try await BriefsFakes.waitForBriefs(gateway, auth: auth)
            func post(_ json: String) async throws -> HTTPClientResponse {
                try await SystemClient.send(gateway, "POST", "/v1/backtest", json: json, headers: auth)
            }
            let required = "tickers required (non-empty array of symbols)"
            #expect(try await SystemClient.send(gateway, "POST", "/v1/backtest", json: "{}").status == 401)
            for bad in ["nope", #"{"tickers":"BTA"}"#, #"{"tickers":[]}"#, #"{"tickers":[1,"9X","TOOLONGSYM"]}"#] {
                let response = try await post(bad)
                #expect(response.status == 400 && SystemClient.errorMessage(response) == required, "\(bad)")
            }
            #expect(try await post(#"{"listId":"wl_nobodys"}"#).status == 404)
            // An empty default list has nothing to test, and says so in its summary.
            #expect(SystemClient.errorMessage(try await post("{}")) == required)
            let empty = SystemClient.json(
                try await SystemClient.send(gateway, "GET", "/v1/watchlist/list-summary", headers: auth))
            #expect(empty["backtestReady"] as? Bool == false)
            let none = try await post(#"{"tickers":["BTZ"]}"#)
            #expect(
                none.status == 502
                    && SystemClient.errorMessage(none) == "no price history for any ticker in this period")

            let given = try await post(#"{"tickers":[" bta","BTB","BTZ","BTA"],"period":"1mo"}"#)
            #expect(given.status == 200)
            let result = try JSONDecoder().decode(BacktestResponse.self, from: Data(given.body))
            #expect(abs(result.totalReturn - 13.0 / 36.0) < 1e-9 && abs(result.benchmarkReturn - 0.1) < 1e-9)
            #expect(abs(result.spread - (13.0 / 36.0 - 0.1)) < 1e-9 && result.period == .oneMonth)
            #expect(result.best.ticker == "BTA" && result.worst.ticker == "BTB" && result.omitted == ["BTZ"])
            #expect(result.series.count == 4 && result.benchmarkSeries.count == 4)

            // Without tickers: the default list's, once it holds them; the summary says it is ready.
            for ticker in ["BTA", "BTB"] {
                #expect(
                    try await SystemClient.send(
                        gateway, "POST", "/v1/watchlist/add", json: #"{"ticker":"\#(ticker)"}"#, headers: auth
                    ).status == 200)
            }
            let ready = SystemClient.json(
                try await SystemClient.send(gateway, "GET", "/v1/watchlist/list-summary", headers: auth))
            #expect(ready["backtestReady"] as? Bool == true)
            // A period outside the documented ones is refused, naming the field; absent, it is 3mo.
            let bogus = try await post(#"{"period":"bogus"}"#)
            #expect(
                bogus.status == 400 && SystemClient.errorMessage(bogus) == "period must be one of 1mo, 3mo, 6mo, 1y")
            let fromList = try JSONDecoder().decode(BacktestResponse.self, from: Data(try await post("{}").body))
            #expect(
                abs(fromList.totalReturn - 13.0 / 36.0) < 1e-9 && fromList.period == .threeMonths
                    && fromList.omitted.isEmpty)
            for fake in [massive, quotes, openRouter, jev] { await fake.shutdown() }
        }

        /// Fifty tickers whose histories never come (a data source that holds every request) answer the documented
        /// 502 within the route's budget, not a 504 after it: Briefs stops waiting before the command's deadline.
        @Test func unknownTickersFailFastWithinTheBudget() async throws {
            let silent = try FakeUpstream { _ in
                try? await Task.sleep(for: .seconds(20))
                return .json(404, raw: Array(#"{"status":"NOT_FOUND"}"#.utf8))
            }
            let (quotes, openRouter, jev, base) = try BriefsFakes.upstreams(BriefsFakes.Knobs())
            var env = base
            env["MASSIVE_BASE_URL"] = silent.baseURL
            env["YAHOO_BASE_URL"] = silent.baseURL
            let briefs = try await ServiceProcess.start("Briefs", extra: env)
            let gateway = try await GatewayProcess.start(
                instance: "test-backtest-bound-\(UInt16.random(in: 0...9999))", extra: ["RATING_BUDGET_MS": "3000"])
            defer {
                briefs.kill()
                gateway.process.kill()
            }
            let (auth, _) = try await BriefsFakes.signIn(gateway)
            try await BriefsFakes.waitForBriefs(gateway, auth: auth)
            let tickers = (1...BacktestCommand.maxTickers).map { #""U\#($0)""# }.joined(separator: ",")
            let started = ContinuousClock.now
            let response = try await SystemClient.send(
                gateway, "POST", "/v1/backtest", json: #"{"tickers":[\#(tickers)]}"#, headers: auth)
            let took = ContinuousClock.now - started
            #expect(response.status == 502, "status \(response.status) after \(took)")
            #expect(SystemClient.errorMessage(response) == "no price history for any ticker in this period")
            #expect(took < .seconds(3), "\(took)")
            for fake in [silent, quotes, openRouter, jev] { await fake.shutdown() }
        }
    }
}
