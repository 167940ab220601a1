import Contracts
import Foundation
import HTTPServer
import MarketData
import Runtime
import Synchronization
import TestSupport
import Testing
import UpstreamFakes

/// A fake Massive that serves `pages` pages of `perPage` rows for aggregates and ratios, chaining them with
/// `next_url` cursors the way Massive does (an opaque token the client must send back unchanged).
enum PagedMassive {
    static let cursors = ["", "c2/+x=", "c3%é"]

    static func nextURL(_ base: String, _ index: Int) -> String {
        guard index + 1 < cursors.count else { return "" }
        let token = cursors[index + 1].addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return #","next_url":"\#(base)?cursor=\#(token)&limit=2""#
    }

    static func page(_ request: HTTPRequest) -> Int? {
        cursors.firstIndex(of: request.query["cursor"] ?? "")
    }

    static func handler(perPage: Int = 2) -> FakeUpstream.Handler {
        { request in
            guard request.headers["Authorization"] == "Bearer massive-test-key" else { return jsonResponse(401, "{}") }
            guard let index = page(request) else { return jsonResponse(400, #"{"status":"ERROR"}"#) }
            let rows = (0..<perPage).map { index * perPage + $0 }
            if request.path.hasPrefix("/v2/aggs/ticker/AAPL/range/1/day/2024-01-01/2024-01-31") {
                let bars = rows.map { i in
                    #"{"t":\#(1_704_067_200_000 + i * 86_400_000),"o":\#(100 + i),"h":\#(101 + i),"l":\#(99 + i),"c":\#(100.5 + Double(i)),"v":\#(1000 * i),"vw":100.2,"n":7}"#
                }
                let broken = #"{"t":1,"o":1,"h":1,"l":1}"#  // no close: dropped
                return jsonResponse(
                    200,
                    #"{"status":"OK","request_id":"agg-\#(index)","results":[\#((bars + [broken]).joined(separator: ","))]\#(nextURL("https://api.massive.com/v2/aggs/ticker/AAPL/range/1/day/2024-01-01/2024-01-31", index))}"#
                )
            }
            if request.path == "/stocks/financials/v1/ratios", request.query["ticker"] == "MSFT" {
                let ratios = rows.map { i in
                    #"{"ticker":"MSFT","date":"2024-01-\#(10 + i)","price_to_earnings":\#(30 + i),"market_cap":3.1e12,"cik":"0000789019"}"#
                }
                let broken = #"{"date":"2024-01-01","price":1}"#  // no ticker: dropped
                return jsonResponse(
                    200,
                    #"{"status":"OK","request_id":"r-\#(index)","results":[\#((ratios + [broken]).joined(separator: ","))]\#(nextURL("https://api.massive.com/stocks/financials/v1/ratios", index))}"#
                )
            }
            return jsonResponse(404, "{}")
        }
    }
}

func massivePages(
    _ fake: FakeUpstream, key: String? = "massive-test-key", primary: MarketDataProvider = .massive,
    fallback: MarketDataProvider? = nil, retries: Int = 0
) -> MarketDataPages {
    var settings = MarketSurfaceConfiguration()
    settings.maxRetries = retries
    settings.retryDelay = .milliseconds(5)
    return MarketDataPages(
        configuration: MarketDataConfiguration(
            primary: primary, fallback: fallback, massiveBaseURL: fake.baseURL, massiveAPIKey: key),
        settings: settings, http: testHTTPClient, logger: quietLogger())
}

@Suite("Market data pages (Massive fake)")
struct MarketPagesTests {
    @Test func anAggregatesCursorWalkReturnsEveryBarOnceInOrder() async throws {
        try await withFake(PagedMassive.handler()) { fake in
            let pages = massivePages(fake)
            var cursor: String?
            var points: [AggregatePoint] = []
            var walked = 0
            repeat {
                let page = try await pages.aggregates(
                    AggregatesCommand(
                        symbol: "AAPL", timespan: "day", multiplier: 1, from: "2024-01-01", to: "2024-01-31",
                        adjusted: true, cursor: cursor)
                ).get()
                #expect(page.requestId == "agg-\(walked)")
                #expect(page.sources.first?.provider == .massive)
                points += page.points
                cursor = page.nextCursor
                walked += 1
            } while cursor != nil && walked < 10
            #expect(walked == 3)
            let opens: [Double] = [100, 101, 102, 103, 104, 105]
            let days: [Int64] = (0..<6).map { (day: Int) -> Int64 in 1_704_067_200 + Int64(day) * 86_400 }
            #expect(points.map(\.open) == opens)
            #expect(points.map(\.ts) == days)
            #expect(points.first?.transactions == 7)
            // The cursors went back exactly as Massive issued them.
            #expect(fake.requests.map { $0.query["cursor"] ?? "" } == PagedMassive.cursors)
            #expect(fake.requests.allSatisfy { $0.query["sort"] == "asc" && $0.query["limit"] == "50000" })
        }
    }

    @Test func aRatiosCursorWalkReturnsEveryRowOnceInOrder() async throws {
        try await withFake(PagedMassive.handler()) { fake in
            let pages = massivePages(fake)
            var cursor: String?
            var rows: [FinancialRatio] = []
            var walked = 0
            repeat {
                let page = try await pages.ratios(FinancialRatiosCommand(ticker: "MSFT", limit: 2, cursor: cursor))
                    .get()
                rows += page.ratios
                cursor = page.nextCursor
                walked += 1
            } while cursor != nil && walked < 10
            #expect(walked == 3)
            let earnings: [Double?] = [30, 31, 32, 33, 34, 35]
            #expect(rows.map(\.priceToEarnings) == earnings)
            #expect(rows.allSatisfy { $0.ticker == "MSFT" && $0.marketCap == 3.1e12 && $0.cik == "0000789019" })
            #expect(fake.requests.map { $0.query["cursor"] ?? "" } == PagedMassive.cursors)
        }
    }

    @Test func failuresCarryTheUpstreamStatus() async throws {
        let calls = Atomic<Int>(0)
        try await withFake({ request in
            calls.add(1, ordering: .relaxed)
            if request.query["ticker"] == "LIMIT" {
                return HTTPResponse.json(429, raw: Array("{}".utf8), headers: [("Retry-After", "0")])
            }
            return jsonResponse(200, #"{"status":"ERROR","request_id":"bad","error":"secret detail"}"#)
        }) { fake in
            let limited = await massivePages(fake, retries: 2).ratios(FinancialRatiosCommand(ticker: "LIMIT", limit: 1))
            #expect(limited == .failure(MarketDataFailure(status: 429)))
            #expect(calls.load(ordering: .relaxed) == 3)  // the first attempt and two retries
            let envelope = await massivePages(fake).ratios(FinancialRatiosCommand(ticker: "X", limit: 1))
            #expect(envelope == .failure(MarketDataFailure(status: 200, requestId: "bad")))
        }
    }

    @Test func providerRulesDecideBeforeAnyCall() async throws {
        try await withFake(PagedMassive.handler()) { fake in
            let query = FinancialRatiosCommand(ticker: "MSFT", limit: 1)
            #expect(await massivePages(fake, key: nil).ratios(query) == .failure(.notConfigured))
            #expect(await massivePages(fake, primary: .yahoo).ratios(query) == .failure(.unsupported))
            #expect(fake.requests.isEmpty)
            let down = await massivePages(fake, key: "wrong", fallback: .yahoo).ratios(query)
            #expect(down == .failure(.unsupported))  // the fallback was tried and has no ratios
        }
    }

    @Test func eventsMergeNewestFirstWithinTheWindow() async throws {
        try await withFake({ request in
            switch request.path {
            case "/stocks/v1/splits":
                return jsonResponse(
                    200,
                    #"{"status":"OK","results":[{"id":"s1","ticker":"AAPL","execution_date":"2020-08-31","split_from":1,"split_to":4},{"ticker":"AAPL"}]}"#
                )
            case "/stocks/v1/dividends":
                return jsonResponse(
                    200,
                    #"{"status":"OK","results":[{"id":"d1","ticker":"AAPL","ex_dividend_date":"2020-11-06","cash_amount":0.205},{"id":"d0","ticker":"AAPL","ex_dividend_date":"2019-01-01","cash_amount":0.1}]}"#
                )
            default: return jsonResponse(500, "{}")
            }
        }) { fake in
            var settings = MarketSurfaceConfiguration()
            settings.corporateEventsEnabled = true
            settings.maxRetries = 0
            let pages = MarketDataPages(
                configuration: MarketDataConfiguration(massiveBaseURL: fake.baseURL, massiveAPIKey: "k"),
                settings: settings, http: testHTTPClient, logger: quietLogger())
            let answer = try await pages.events(
                MarketEventsCommand(ticker: "AAPL", from: "2020-01-01", to: "2020-12-31", limit: 10)
            ).get()
            #expect(answer.events.map(\.id) == ["d1", "s1"])
            #expect(answer.events.map(\.description) == ["Cash dividend 0.205", "1 for 4 split"])
            #expect(answer.tmxAvailable == false)  // the partner call failed and was swallowed
            let splitsQuery = fake.requests.first { $0.path == "/stocks/v1/splits" }?.query
            #expect(splitsQuery?["execution_date.gte"] == "2020-01-01")
            #expect(splitsQuery?["limit"] == "10")
        }
    }
}
