import Contracts
import Foundation
import HTTPServer
import MarketData
import Runtime
import Synchronization
import TestSupport
import Testing
import UpstreamFakes

private let yahooQuoteBody = """
    {"chart":{"result":[{"meta":{"currency":"USD","symbol":"AAPL","exchangeName":"NMS","fullExchangeName":"NasdaqGS",
    "instrumentType":"EQUITY","firstTradeDate":345479400,"regularMarketTime":1700000000,"hasPrePostMarketData":true,
    "gmtoffset":-18000,"timezone":"EST","exchangeTimezoneName":"America/New_York","regularMarketPrice":189.5,
    "fiftyTwoWeekHigh":199.62,"fiftyTwoWeekLow":124.17,"regularMarketVolume":53790500,"longName":"Apple Inc.",
    "shortName":"Apple Inc.","chartPreviousClose":187.5,"priceHint":2,"dataGranularity":"1d","range":"1d"},
    "timestamp":[1700000000],"indicators":{"quote":[{"open":[187.7],"close":[189.5],"volume":[53790500],
    "low":[187.45],"high":[190.05]}],"adjclose":[{"adjclose":[189.5]}]}}],"error":null}}
    """

private let yahooHistoryBody = """
    {"chart":{"result":[{"meta":{"symbol":"AAPL","regularMarketPrice":189.5},
    "timestamp":[1699900000,1699986400,1700072800,1700159200],
    "indicators":{"quote":[{"close":[180.0,181.0,null,183.0]}],"adjclose":[{"adjclose":[179.5,180.5,null,182.5]}]}}],"error":null}}
    """

/// A Massive snapshot; pass JSON fragments to vary the price fields.
private func massiveSnapshot(
    lastTrade: String?, lastQuote: String?, day: String = #"{"o":188,"h":191,"l":187,"c":190.1,"v":1000}"#
) -> String {
    var fields = [
        #""ticker":"AAPL""#, #""todaysChange":2.1"#, #""todaysChangePerc":1.1"#, #""updated":1700000000000000000"#,
        #""day":\#(day)"#, #""prevDay":{"o":186,"h":189,"l":185,"c":188.0,"v":900}"#,
        #""min":{"c":190.0,"t":1700000000000}"#,
    ]
    if let lastTrade { fields.append(#""lastTrade":\#(lastTrade)"#) }
    if let lastQuote { fields.append(#""lastQuote":\#(lastQuote)"#) }
    return #"{"request_id":"req-1","status":"OK","ticker":{\#(fields.joined(separator: ","))}}"#
}

private func massiveClient(_ fake: FakeUpstream, freshness: MarketDataFreshness = .unknown) -> MarketDataClient {
    MarketDataClient(
        configuration: MarketDataConfiguration(
            primary: .massive, massiveBaseURL: fake.baseURL, massiveAPIKey: "massive-test-key",
            massiveFreshness: freshness),
        http: testHTTPClient, logger: quietLogger())
}

private func yahooClient(_ fake: FakeUpstream, timeout: Duration = .seconds(5)) -> MarketDataClient {
    MarketDataClient(
        configuration: MarketDataConfiguration(primary: .yahoo, yahooBaseURL: fake.baseURL, requestTimeout: timeout),
        http: testHTTPClient, logger: quietLogger())
}

struct YahooQuoteTests {
    @Test func normalizesTheChartMeta() async throws {
        try await withFake({ _ in jsonResponse(200, yahooQuoteBody) }) { fake in
            let quote = try #require(await yahooClient(fake).quote(" aapl "))
            #expect(quote.symbol == "AAPL")
            #expect(quote.price == 189.5)
            #expect(quote.change == 2.0)
            #expect(abs(quote.changePct - 2.0 / 187.5 * 100) < 1e-9)
            #expect(quote.currency == "USD")
            #expect(quote.ts == "2023-11-14T22:13:20.000Z")
            #expect(quote.name == "Apple Inc.")
            #expect(quote.provider == "yahoo" && quote.freshness == "delayed")
            #expect(quote.disclaimer == "delayed by 15 min, source: Yahoo Finance")

            let request = try #require(fake.lastRequest)
            #expect(request.method == "GET" && request.path == "/v7/finance/chart/AAPL")
            #expect(request.query == ["interval": "1d", "range": "1d"])
            #expect(request.headers["User-Agent"] == "mapvest/0.1 (+https://mapvest.app)")
            #expect(request.headers["Authorization"] == nil)
        }
    }

    @Test func previousCloseFallsBackAndIsRequired() async throws {
        let withPrevious = #"{"chart":{"result":[{"meta":{"regularMarketPrice":10,"previousClose":8}}]}}"#
        try await withFake({ _ in jsonResponse(200, withPrevious) }) { fake in
            let quote = try #require(await yahooClient(fake).quote("XYZ"))
            #expect(quote.change == 2 && quote.changePct == 25 && quote.symbol == "XYZ" && quote.name == nil)
        }
        try await withFake({ _ in jsonResponse(200, #"{"chart":{"result":[{"meta":{"regularMarketPrice":10}}]}}"#) }) {
            fake in
            #expect(await yahooClient(fake).quote("XYZ") == nil)
        }
    }

    @Test func timeoutGivesNoQuote() async throws {
        try await withFake({ _ in
            try? await Task.sleep(for: .milliseconds(1500))
            return jsonResponse(200, yahooQuoteBody)
        }) { fake in
            let start = ContinuousClock.now
            #expect(await yahooClient(fake, timeout: .milliseconds(200)).quote("AAPL") == nil)
            #expect(ContinuousClock.now - start < .milliseconds(1200))
        }
    }
}

struct MassiveQuoteTests {
    @Test func lastTradeWins() async throws {
        let body = massiveSnapshot(
            lastTrade: #"{"c":[14,41],"i":"71675577320245","p":190.15,"s":2,"t":1700000000200000000,"x":4}"#,
            lastQuote: #"{"P":190.2,"S":1,"p":190.0,"s":2,"t":1700000000100000000}"#)
        try await withFake({ _ in jsonResponse(200, body) }) { fake in
            let quote = try #require(await massiveClient(fake, freshness: .realTime).quote("AAPL"))
            #expect(quote.price == 190.15)
            #expect(abs(quote.change - 2.15) < 1e-9)
            #expect(quote.ts == "2023-11-14T22:13:20.200Z")
            #expect(quote.provider == "massive" && quote.freshness == "real-time")
            #expect(quote.disclaimer == "real-time, source: Massive")

            let request = try #require(fake.lastRequest)
            #expect(request.path == "/v2/snapshot/locale/us/markets/stocks/tickers/AAPL")
            #expect(request.headers["Authorization"] == "Bearer massive-test-key")
            #expect(request.rawQuery == nil)  // the key never travels in the URL
        }
    }

    @Test func bidAskMidWhenNoTrade() async throws {
        let body = massiveSnapshot(
            lastTrade: nil, lastQuote: #"{"P":190.2,"S":1,"p":190.0,"s":2,"t":1700000000100000000}"#)
        try await withFake({ _ in jsonResponse(200, body) }) { fake in
            let quote = try #require(await massiveClient(fake).quote("AAPL"))
            #expect(abs(quote.price - 190.1) < 1e-9)
            #expect(quote.ts == "2023-11-14T22:13:20.100Z")
            #expect(quote.freshness == "unknown")
            #expect(quote.disclaimer == "freshness depends on Massive subscription, source: Massive")
        }
    }

    @Test func dayCloseWhenNoTradeOrFullQuote() async throws {
        // A zero trade price and a one-sided quote mean "no data" in a snapshot.
        let body = massiveSnapshot(lastTrade: #"{"p":0,"t":0}"#, lastQuote: #"{"P":0,"p":189.0}"#)
        try await withFake({ _ in jsonResponse(200, body) }) { fake in
            let quote = try #require(await massiveClient(fake, freshness: .endOfDay).quote("AAPL"))
            #expect(quote.price == 190.1)
            #expect(quote.disclaimer == "end-of-day, source: Massive")
        }
    }

    @Test func errorStatusOrMissingPreviousIsNoQuote() async throws {
        try await withFake({ _ in jsonResponse(200, #"{"status":"ERROR","error":"Unknown API Key"}"#) }) { fake in
            #expect(await massiveClient(fake).quote("AAPL") == nil)
        }
        try await withFake({ _ in jsonResponse(200, #"{"status":"OK","ticker":{"lastTrade":{"p":5}}}"#) }) { fake in
            #expect(await massiveClient(fake).quote("AAPL") == nil)
        }
    }
}

struct MarketDataRouterTests {
    @Test func concurrentCallersShareOneRequestAndAnswersAreCached() async throws {
        try await withFake({ _ in
            try? await Task.sleep(for: .milliseconds(300))
            return jsonResponse(200, yahooQuoteBody)
        }) { fake in
            let market = yahooClient(fake)
            async let first = market.quote("AAPL")
            async let second = market.quote("aapl")
            let (a, b) = await (first, second)
            #expect(a != nil && a == b)
            #expect(await market.quote("AAPL") == a)
            #expect(fake.requestCount == 1)
        }
    }

    @Test func emptyAnswersAreCachedToo() async throws {
        try await withFake({ _ in jsonResponse(500, "{}") }) { fake in
            let market = yahooClient(fake)
            #expect(await market.quote("AAPL") == nil)
            #expect(await market.quote("AAPL") == nil)
            #expect(fake.requestCount == 1)
        }
    }

    @Test func invalidSymbolsNeverReachTheUpstream() async throws {
        try await withFake({ _ in jsonResponse(200, yahooQuoteBody) }) { fake in
            let market = yahooClient(fake)
            for bad in ["", "1ABC", "AAPL/../x", "ABCDEFGHIJK", "A B", "ÄPL", "$AAPL", "AAPL?x=1"] {
                #expect(await market.quote(bad) == nil)
            }
            #expect(await market.history("../etc") == nil)
            #expect(await market.news("A&B").provider == "error")
            #expect(fake.requestCount == 0)
            #expect(await market.quote("BRK.B") != nil)
            #expect(await market.quote("BRK-B") != nil)
            #expect(fake.requests.map(\.path) == ["/v7/finance/chart/BRK.B", "/v7/finance/chart/BRK-B"])
        }
    }

    @Test func fallbackOnlyWhenConfigured() async throws {
        try await withFake({ _ in jsonResponse(500, #"{"status":"ERROR"}"#) }) { massive in
            try await withFake({ _ in jsonResponse(200, yahooQuoteBody) }) { yahoo in
                let env = Environment([
                    "MASSIVE_BASE_URL": massive.baseURL, "MASSIVE_API_KEY": "k", "YAHOO_BASE_URL": yahoo.baseURL,
                ])
                let noFallback = MarketDataClient.fromEnvironment(env, http: testHTTPClient, logger: quietLogger())
                #expect(await noFallback.quote("AAPL") == nil)
                #expect(massive.requestCount == 1 && yahoo.requestCount == 0)

                var withFallback = env.values
                withFallback["MARKET_DATA_FALLBACK_PROVIDER"] = "yahoo"
                let market = MarketDataClient.fromEnvironment(
                    Environment(withFallback), http: testHTTPClient, logger: quietLogger())
                let quote = try #require(await market.quote("AAPL"))
                #expect(quote.provider == "yahoo")
                #expect(massive.requestCount == 2 && yahoo.requestCount == 1)
            }
        }
    }

    @Test func massiveWithoutKeyIsSkippedAndLoggedOnce() async throws {
        try await withFake({ _ in jsonResponse(200, yahooQuoteBody) }) { yahoo in
            let sink = LogSink.memory()
            let market = MarketDataClient(
                configuration: MarketDataConfiguration(
                    primary: .massive, fallback: .yahoo, yahooBaseURL: yahoo.baseURL),
                http: testHTTPClient, logger: quietLogger(sink))
            #expect(await market.quote("AAPL")?.provider == "yahoo")
            #expect(await market.quote("MSFT")?.provider == "yahoo")
            #expect(sink.lines.filter { $0.contains("MASSIVE_API_KEY is not set") }.count == 1)

            let alone = MarketDataClient(
                configuration: MarketDataConfiguration(primary: .massive, yahooBaseURL: yahoo.baseURL),
                http: testHTTPClient, logger: quietLogger())
            #expect(await alone.quote("NKE") == nil)
            #expect(yahoo.requestCount == 2)
        }
    }

    @Test func configurationFromEnvironment() {
        let defaults = MarketDataConfiguration.fromEnvironment(Environment([:]))
        #expect(defaults.primary == .massive && defaults.fallback == nil && defaults.massiveAPIKey == nil)
        #expect(defaults.yahooBaseURL == "https://query1.finance.yahoo.com")
        #expect(defaults.massiveBaseURL == "https://api.massive.com")
        #expect(defaults.requestTimeout == .seconds(5) && defaults.quoteTTL == .seconds(30))

        let legacy = MarketDataConfiguration.fromEnvironment(
            Environment(["MARKET_DATA_PROVIDER": "Yahoo", "MARKET_DATA_FALLBACK_PROVIDER": "finnhub"]))
        #expect(legacy.primary == .yahoo && legacy.fallback == nil)

        let both = MarketDataConfiguration.fromEnvironment(
            Environment([
                "MARKET_DATA_PRIMARY": "massive", "MARKET_DATA_PROVIDER": "yahoo",
                "MARKET_DATA_FALLBACK_PROVIDER": "yahoo",
                "MASSIVE_MARKET_DATA_FRESHNESS": "15m",
            ]))
        #expect(both.primary == .massive && both.fallback == .yahoo && both.massiveFreshness == .delayed)
    }
}

struct HistoryAndNewsTests {
    @Test func historyUsesAdjustedClosesAndIsCached() async throws {
        try await withFake({ _ in jsonResponse(200, yahooHistoryBody) }) { fake in
            let market = yahooClient(fake)
            let points = try #require(await market.history("AAPL", period: .threeMonths, interval: .oneDay))
            #expect(
                points == [
                    HistoryPoint(ts: 1_699_900_000, close: 179.5), HistoryPoint(ts: 1_699_986_400, close: 180.5),
                    HistoryPoint(ts: 1_700_159_200, close: 182.5),
                ])
            #expect(await market.history("AAPL", period: .threeMonths, interval: .oneDay) == points)
            #expect(fake.requestCount == 1)
            #expect(fake.lastRequest?.query == ["interval": "1d", "range": "3mo"])

            _ = await market.history("AAPL", period: .oneYear, interval: .fifteenMinutes)
            #expect(fake.lastRequest?.query == ["interval": "15m", "range": "5d"])
            #expect(fake.requestCount == 2)
        }
    }

    @Test func priceHistoryHasAdjustedOHLCVBarsAndNamesItsProvider() async throws {
        let body = """
            {"chart":{"result":[{"timestamp":[1699900000,1699986400,1700072800],
            "indicators":{"quote":[{"open":[99.0,100.0,101.0],"high":[101.0,102.0,null],"low":[98.0,99.0,100.0],
            "close":[100.0,101.0,102.0],"volume":[1500,null,-3]}],"adjclose":[{"adjclose":[50.0,50.5,51.0]}]}}]}}
            """
        try await withFake({ _ in jsonResponse(200, body) }) { fake in
            let history = try #require(
                await yahooClient(fake).priceHistory("AAPL", period: .oneMonth, interval: .oneDay))
            #expect(history.provider == .yahoo)
            #expect(
                history.bars == [
                    PriceBar(ts: 1_699_900_000, open: 49.5, high: 50.5, low: 49, close: 50, volume: 1500),
                    PriceBar(ts: 1_699_986_400, open: 50, high: 51, low: 49.5, close: 50.5, volume: nil),
                    PriceBar(ts: 1_700_072_800, open: 50.5, high: nil, low: 50, close: 51, volume: nil),
                ])
            #expect(fake.lastRequest?.query == ["interval": "1d", "range": "1mo"])
        }
    }

    @Test func massiveAggregatesAreTheHistoryWhenMassiveIsTheKeyedPrimary() async throws {
        let aggregates = """
            {"ticker":"AAPL","status":"OK","resultsCount":3,"results":[
            {"t":1700006400000,"o":11,"h":12.5,"l":10.5,"c":12,"v":900},
            {"t":1699920000000,"o":10,"h":11.5,"l":9.5,"c":11,"v":1000},
            {"t":1700092800000,"c":0,"v":5}]}
            """
        let failing = Flag()
        try await withFake({ request in
            if request.path.hasPrefix("/v2/aggs/ticker/") {
                return failing.isOn ? jsonResponse(500, "{}") : jsonResponse(200, aggregates)
            }
            return jsonResponse(200, yahooHistoryBody)
        }) { fake in
            let market = MarketDataClient(
                configuration: MarketDataConfiguration(
                    primary: .massive, yahooBaseURL: fake.baseURL, massiveBaseURL: fake.baseURL, massiveAPIKey: "k"),
                http: testHTTPClient, logger: quietLogger())
            let history = try #require(await market.priceHistory("AAPL", period: .oneYear, interval: .oneDay))
            #expect(history.provider == .massive)
            #expect(
                history.bars == [
                    PriceBar(ts: 1_699_920_000, open: 10, high: 11.5, low: 9.5, close: 11, volume: 1000),
                    PriceBar(ts: 1_700_006_400, open: 11, high: 12.5, low: 10.5, close: 12, volume: 900),
                ])
            let request = try #require(fake.lastRequest)
            let parts = request.path.split(separator: "/")
            #expect(parts.prefix(6) == ["v2", "aggs", "ticker", "AAPL", "range", "1"] && parts[6] == "day")
            #expect(request.query["adjusted"] == "true" && request.query["sort"] == "asc")
            #expect(request.headers["Authorization"] == "Bearer k")
            // Massive failing: Yahoo answers.
            failing.set(true)
            #expect(await market.priceHistory("AAPL", period: .sixMonths, interval: .oneDay)?.provider == .yahoo)
        }
    }

    @Test func newsMapsMassiveReferenceNews() async throws {
        let body = """
            {"results":[
              {"id":"1","publisher":{"name":"Benzinga","homepage_url":"https://www.benzinga.com/"},"title":"Older story",
               "author":"A","published_utc":"2024-06-20T12:00:00Z","article_url":"https://news.example/older","tickers":["NKE"]},
              {"id":"2","publisher":{"name":" "},"title":"Newer story","published_utc":"2024-06-24T18:33:53Z",
               "article_url":"https://news.example/newer","tickers":["NKE"]},
              {"id":"3","publisher":{"name":"X"},"title":"","published_utc":"2024-06-25T00:00:00Z","article_url":"https://news.example/untitled"},
              {"id":"4","publisher":{"name":"X"},"title":"No link","published_utc":"2024-06-25T00:00:00Z"}
            ],"status":"OK","request_id":"r","count":4}
            """
        try await withFake({ _ in jsonResponse(200, body) }) { fake in
            let market = massiveClient(fake)
            let news = await market.news("nke", limit: 6)
            #expect(news.provider == "massive")
            #expect(
                news.items == [
                    NewsItem(
                        title: "Newer story", url: "https://news.example/newer", source: "Massive",
                        publishedAt: "2024-06-24T18:33:53.000Z"),
                    NewsItem(
                        title: "Older story", url: "https://news.example/older", source: "Benzinga",
                        publishedAt: "2024-06-20T12:00:00.000Z"),
                ])
            #expect(await market.news("NKE", limit: 1).items.count == 1)
            #expect(fake.requestCount == 1)
            let request = try #require(fake.lastRequest)
            #expect(request.path == "/v2/reference/news")
            #expect(request.query["ticker"] == "NKE" && request.query["limit"] == "25")
            #expect(request.headers["Authorization"] == "Bearer massive-test-key")
        }
    }

    @Test func newsFailureSaysErrorAndIsNotCached() async throws {
        try await withFake({ _ in jsonResponse(503, "{}") }) { fake in
            let market = massiveClient(fake)
            #expect(await market.news("NKE") == MarketNews(items: [], provider: "error"))
            #expect(await market.news("NKE").failed)
            #expect(fake.requestCount == 2)
        }
    }
}

/// A switch a fake reads while a test flips it.
final class Flag: Sendable {
    private let value = Mutex(false)
    var isOn: Bool { value.withLock { $0 } }
    func set(_ on: Bool) { value.withLock { $0 = on } }
}
