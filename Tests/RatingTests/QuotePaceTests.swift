import Contracts
import Foundation
import HTTPServer
import MarketData
import Messaging
import Redis
import Runtime
import TestSupport
import Testing
import TickerPage
import UpstreamFakes

/// Massive's stock snapshot and daily bars for any ticker, counting every request.
private func massiveQuotesAndBars(calls: Counter) -> FakeUpstream.Handler {
    { request in
        calls.next()
        if request.path.hasPrefix("/v2/snapshot/locale/us/markets/stocks/tickers/") {
            let symbol = request.path.split(separator: "/").last.map(String.init) ?? "X"
            return jsonResponse(
                200,
                #"{"status":"OK","ticker":{"ticker":"\#(symbol)","updated":1785000000000000000,"#
                    + #""day":{"c":130},"prevDay":{"c":128},"lastTrade":{"p":130.5,"t":1785000000000000000}}}"#)
        }
        if request.path.hasPrefix("/v2/aggs/ticker/") {
            let bars = (0..<20).map { i in
                #"{"t":\#(1_780_000_000_000 + i * 86_400_000),"o":\#(100 + i),"h":\#(102 + i),"l":\#(99 + i),"#
                    + #""c":\#(101 + i),"v":\#(1000 + i)}"#
            }
            return jsonResponse(200, #"{"status":"OK","results":[\#(bars.joined(separator: ","))]}"#)
        }
        return jsonResponse(404, #"{"status":"NOT_FOUND"}"#)
    }
}

/// `GET /v1/quote` and `/v1/quote-history` ask Massive through the plan's pace, the one bucket the market-data surface
/// uses for every Rating replica.
@Suite(.serialized) struct QuotePaceTests {
    func pages(_ market: MarketDataClient, redis: RedisClient?) -> QuotePages {
        QuotePages(market: market, histories: PriceHistoryStore(market: market, redis: redis, logger: quietLogger()))
    }

    @Test func quotesAndHistoryAnswerAsUnpacedAndSpendTheSurfacesSlots() async throws {
        let redis = try await redisClient()
        let pace = MassivePace(
            perMinute: 2, redis: redis, key: "mapvest:test:pace:" + MarketSurfaceTests.ticker(), logger: quietLogger())
        let calls = Counter()
        let fake = try FakeUpstream(massiveQuotesAndBars(calls: calls))
        // History falls back to Yahoo when Massive has no answer; this one has none either.
        let yahoo = try FakeUpstream { _ in jsonResponse(404, "{}") }
        let configuration = MarketDataConfiguration(
            primary: .massive, yahooBaseURL: yahoo.baseURL, massiveBaseURL: fake.baseURL, massiveAPIKey: "k")
        let paced = pages(
            MarketDataClient(configuration: configuration, http: testHTTPClient, pace: pace, logger: quietLogger()),
            redis: redis)
        let unpaced = pages(
            MarketDataClient(configuration: configuration, http: testHTTPClient, logger: quietLogger()), redis: nil)
        let symbol = MarketSurfaceTests.ticker()
        let history = QuoteHistoryCommand(symbol: symbol, period: .oneMonth, interval: .oneDay)

        // The two slots of the minute: one quote, one history, answered exactly as without a pace.
        let quote = await paced.quote(QuoteCommand(symbol: symbol))
        let bars = await paced.history(history)
        let expectedQuote = await unpaced.quote(QuoteCommand(symbol: symbol))
        let expectedBars = await unpaced.history(history)
        #expect(quote.status == 200 && quote.body == expectedQuote.body)
        #expect(quote.headers.first { $0.0 == "Cache-Control" }?.1 == "public, max-age=15, stale-while-revalidate=60")
        #expect(bars.status == 200)
        let points = try decodeBody(QuoteHistoryResponse.self, bars).points
        #expect(points == (try decodeBody(QuoteHistoryResponse.self, expectedBars).points))
        #expect(points.count == 20)
        #expect(calls.count == 4)

        // Repeats come from the caches and spend no slot.
        #expect(await paced.quote(QuoteCommand(symbol: symbol)).status == 200)
        #expect(await paced.history(history).status == 200)
        #expect(calls.count == 4)

        // The bucket is empty: the next slot is 30 s away, past a 500 ms budget, so nothing is sent and the routes
        // answer as when Massive fails, at once.
        let other = MarketSurfaceTests.ticker()
        let started = ContinuousClock.now
        let refused = await TaskDeadline.$current.withValue(ContinuousClock.now + .milliseconds(500)) {
            (
                await paced.quote(QuoteCommand(symbol: other)),
                await paced.history(QuoteHistoryCommand(symbol: other, period: .oneMonth, interval: .oneDay))
            )
        }
        #expect(ContinuousClock.now - started < .milliseconds(400))
        #expect(
            refused.0.status == 502 && String(decoding: refused.0.body, as: UTF8.self).contains("quote unavailable"))
        #expect(
            refused.1.status == 502 && String(decoding: refused.1.body, as: UTF8.self).contains("history unavailable"))
        #expect(calls.count == 4)

        // And the surface, sharing the bucket, is rate limited too.
        let surface = MarketSurfacePages(
            pages: MarketDataPages(
                configuration: configuration, settings: MarketSurfaceConfiguration(), http: testHTTPClient,
                pace: pace, logger: quietLogger()),
            redis: redis, logger: quietLogger())
        let ratios = await TaskDeadline.$current.withValue(ContinuousClock.now + .milliseconds(500)) {
            await surface.ratios(FinancialRatiosCommand(ticker: other, limit: 1))
        }
        #expect(ratios.status == 429)
        #expect(calls.count == 4)
        await fake.shutdown()
        await yahoo.shutdown()
    }
}
