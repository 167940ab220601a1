import Charts
import Contracts
import Foundation
import HTTPServer
import MarketData
import Messaging
import RatingAdapters
import Redis
import Runtime
import TestSupport
import Testing
import TickerPage
import UpstreamFakes

@Suite(.serialized) struct TickerPageTests {
    @Test func quoteShapeBadSymbolAndProviderDown() async throws {
        let f = try await TickerFixture()
        let page = f.page(underlying: try deadUnderlying())
        let symbol = uniqueTicker()
        let ok = await page.quotes.quote(QuoteCommand(symbol: " \(symbol.lowercased()) "))
        #expect(ok.status == 200 && header(ok, "Cache-Control") == "public, max-age=15, stale-while-revalidate=60")
        let quote = try decodeBody(QuoteResponse.self, ok).quote
        #expect(quote.symbol == symbol && quote.provider == "yahoo" && quote.currency == "USD")
        #expect(quote.disclaimer == "delayed by 15 min, source: Yahoo Finance")
        let bad = await page.quotes.quote(QuoteCommand(symbol: "../etc"))
        #expect(bad.status == 400 && errorText(bad) == "invalid symbol")
        f.yahooDown.set(true)
        let down = await page.quotes.quote(QuoteCommand(symbol: uniqueTicker()))
        #expect(down.status == 502 && errorText(down) == "quote unavailable" && header(down, "Cache-Control") == nil)
        await f.shutdown()
    }

    @Test func quoteHistoryForEachPeriodWithOHLCVAndItsSource() async throws {
        let f = try await TickerFixture()
        let page = f.page(underlying: try deadUnderlying())
        let symbol = uniqueTicker()
        for period in PricePeriod.allCases {
            let reply = await page.quotes.history(
                QuoteHistoryCommand(symbol: symbol, period: period, interval: .oneDay))
            #expect(reply.status == 200 && header(reply, "Cache-Control") == "public, max-age=60")
            let body = try decodeBody(QuoteHistoryResponse.self, reply)
            let expected = TickerFake.bars(range: period.rawValue)
            #expect(body.ticker == symbol && body.period == period && body.interval == .oneDay)
            #expect(body.points.count == expected.count && body.points.last?.ts == TickerFake.end)
            #expect(
                body.points.first?.volume == expected.first?.volume && body.points.first?.high == expected.first?.high)
            #expect(
                body.sources.map(\.provider) == [.yahoo]
                    && body.sources.first?.url == "https://finance.yahoo.com/quote/\(symbol)")
            #expect(f.yahoo.lastRequest?.query == ["range": period.rawValue, "interval": "1d"])
        }
        _ = await page.quotes.history(QuoteHistoryCommand(symbol: symbol, period: .oneYear, interval: .oneWeek))
        #expect(f.yahoo.lastRequest?.query == ["range": "1y", "interval": "1wk"])
        let none = await page.quotes.history(
            QuoteHistoryCommand(symbol: "NODATA", period: .oneMonth, interval: .oneDay))
        #expect(none.status == 502 && errorText(none) == "history unavailable")
        await f.shutdown()
    }

    @Test func aSecondReplicaReadsTheSharedHistoryWithoutAProviderCall() async throws {
        let f = try await TickerFixture()
        let symbol = uniqueTicker()
        // Two replicas: separate market-data clients (separate in-process caches), one Redis.
        let first = f.page(underlying: try deadUnderlying())
        let second = f.page(underlying: try deadUnderlying())
        let command = QuoteHistoryCommand(symbol: symbol, period: .sixMonths, interval: .oneDay)
        let a = try decodeBody(QuoteHistoryResponse.self, await first.quotes.history(command))
        let calls = f.yahoo.requestCount
        let b = try decodeBody(QuoteHistoryResponse.self, await second.quotes.history(command))
        #expect(f.yahoo.requestCount == calls)
        #expect(a == b && a.points.count == 126)
        #expect(try await f.redis.get("mapvest:history:v1:\(symbol)::6mo::1d") != nil)

        // The chart drawn by one replica from that history is the other's too (kept under the history's fetch time).
        let chart = ChartCommand(type: .regression, ticker: symbol, period: .sixMonths, interval: .oneDay)
        let drawn = try decodeBody(ChartResponse.self, await first.charts.chart(chart, deadline: .now + .seconds(10)))
        let fetchedAt = try #require(a.sources.first?.fetchedAt)
        #expect(try await f.redis.get("mapvest:chart:v1:regression::\(symbol)::6mo::1d::\(fetchedAt)") != nil)
        let again = try decodeBody(ChartResponse.self, await second.charts.chart(chart, deadline: .now + .seconds(10)))
        #expect(again == drawn && f.yahoo.requestCount == calls)
        await f.shutdown()
    }

    @Test(arguments: [ChartType.price, .regression, .ridge, .auction])
    func eachChartWeDrawIsAPNGOfTheStatedSize(type: ChartType) async throws {
        let f = try await TickerFixture()
        let page = f.page(underlying: try deadUnderlying())
        let reply = await page.charts.chart(
            ChartCommand(type: type, ticker: uniqueTicker(), period: .sixMonths, interval: .oneDay),
            deadline: .now + .seconds(10))
        #expect(reply.status == 200 && header(reply, "Cache-Control") == "public, max-age=300")
        let chart = try decodeBody(ChartResponse.self, reply)
        #expect(chart.type == type.rawValue && chart.period == "6mo" && chart.image.mime == "image/png")
        #expect(chart.provider == "yahoo" && chart.sourceUrl == nil)
        #expect(chart.providerNote?.hasPrefix("Drawn by Mapvest (cairo) from Yahoo Finance daily bars") == true)
        #expect(chart.providerNote?.contains("Underlying Analyzer chart unavailable (unreachable)") == (type != .price))
        let png = try #require(Data(base64Encoded: chart.image.data))
        let info = try #require(PNGInfo.inspect(Array(png)))
        #expect(info.width == 1080 && info.height == 720 && info.luminanceVariance > 100)
        #expect(reply.body.count < ChartService.maxReplyBytes)
        await f.shutdown()
    }

    @Test func regressionSlopeIsTheLeastSquaresFit() async throws {
        let f = try await TickerFixture()
        let page = f.page(underlying: try deadUnderlying())
        let reply = await page.charts.chart(
            ChartCommand(type: .regression, ticker: uniqueTicker(), period: .oneYear, interval: .oneDay),
            deadline: .now + .seconds(10))
        let chart = try decodeBody(ChartResponse.self, reply)
        let bars = TickerFake.bars(range: "1y")
        let x = bars.map { Double($0.ts - bars[0].ts) / 86_400 }
        let y = bars.map { log($0.close) }
        let n = Double(bars.count)
        let mx = x.reduce(0, +) / n
        let my = y.reduce(0, +) / n
        var sxy = 0.0
        var sxx = 0.0
        for (xi, yi) in zip(x, y) {
            sxy += (xi - mx) * (yi - my)
            sxx += (xi - mx) * (xi - mx)
        }
        let slope = sxy / sxx
        guard case .number(let reported)? = chart.meta?["slopePerDay"] else {
            Issue.record("no slope in meta")
            return
        }
        #expect(abs(reported - slope) < 1e-12)
        await f.shutdown()
    }

    @Test func auctionLevelsAreTheVolumeProfile() async throws {
        let f = try await TickerFixture()
        let page = f.page(underlying: try deadUnderlying())
        let reply = await page.charts.chart(
            ChartCommand(type: .auction, ticker: uniqueTicker(), period: .threeMonths, interval: .oneDay),
            deadline: .now + .seconds(10))
        let levels = try #require(try decodeBody(ChartResponse.self, reply).levels)
        let (poc, vah, val) = try (#require(levels.poc), #require(levels.vah), #require(levels.val))
        // The profile computed here: 24 equal bins of close between the lowest and highest close.
        let bars = TickerFake.bars(range: "3mo")
        let lo = bars.map(\.close).min() ?? 0
        let hi = bars.map(\.close).max() ?? 0
        let width = (hi - lo) / 24
        var volume = [Double](repeating: 0, count: 24)
        for bar in bars { volume[min(23, Int((bar.close - lo) / width))] += bar.volume }
        let maxBin = volume.indices.max { volume[$0] < volume[$1] || (volume[$0] == volume[$1] && $0 > $1) } ?? 0
        #expect(abs(poc - (lo + (Double(maxBin) + 0.5) * width)) < 1e-9)
        let total = volume.reduce(0, +)
        let inside = bars.filter { $0.close >= val - 1e-9 && $0.close <= vah + 1e-9 }.map(\.volume).reduce(0, +)
        #expect(inside >= 0.7 * total && val < poc && poc < vah)
        // Dropping both edge bins leaves less than 70 %: the value area is no wider than it has to be.
        let inner = bars.filter { $0.close >= val + width - 1e-9 && $0.close < vah - width - 1e-9 }.map(\.volume)
            .reduce(0, +)
        #expect(inner < 0.7 * total)
        await f.shutdown()
    }

    @Test func underlyingsChartIsPassedThroughUnchanged() async throws {
        let f = try await TickerFixture()
        let upstream = try FakeUpstream { request in
            guard request.method == "POST", request.path == "/api/charts/auction" else {
                return jsonResponse(404, "{}")
            }
            return jsonResponse(
                200,
                """
                {"images":[{"filename":"auction.png","mime":"image/png","data":"\(underlyingPNG)"}],"provider":"yfinance",\
                "provider_note":"analyzer cache","meta":{"poc":101.5,"vah":103.25,"val":99,"bins":40}}
                """)
        }
        let page = f.page(
            underlying: UnderlyingClient(baseURL: upstream.baseURL, http: testHTTPClient, logger: quietLogger()))
        let ticker = uniqueTicker()
        let reply = await page.charts.chart(
            ChartCommand(type: .auction, ticker: ticker, period: .oneMonth, interval: .oneDay, month: 3),
            deadline: .now + .seconds(10))
        #expect(reply.status == 200)
        let chart = try decodeBody(ChartResponse.self, reply)
        #expect(chart.image == ChartImage(mime: "image/png", data: underlyingPNG, filename: "auction.png"))
        #expect(chart.levels == ChartLevels(poc: 101.5, vah: 103.25, val: 99))
        #expect(
            chart.provider == "yfinance" && chart.providerNote == "analyzer cache"
                && chart.sourceUrl == upstream.baseURL + "/")
        #expect(chart.meta?["bins"] == .number(40))
        let sent = try #require(upstream.lastRequest)
        #expect(
            try JSONDecoder().decode([String: JSONValue].self, from: Data(sent.body)) == [
                "ticker": .string(ticker), "period": .string("1mo"), "interval": .string("1d"),
            ])
        #expect(f.yahoo.requestCount == 0)

        // Underlying failing: we draw our own; a type only Underlying draws is a 502 naming why.
        upstream.respond { _ in jsonResponse(500, "{}") }
        let fallback = try decodeBody(
            ChartResponse.self,
            await page.charts.chart(
                ChartCommand(type: .auction, ticker: ticker, period: .oneMonth, interval: .oneDay),
                deadline: .now + .seconds(10)))
        #expect(
            fallback.provider == "yahoo" && fallback.providerNote?.hasSuffix("(http 500)") == true
                && fallback.levels?.poc != nil)
        let torque = await page.charts.chart(
            ChartCommand(type: .torque, ticker: ticker, period: .twoYears, interval: .oneDay),
            deadline: .now + .seconds(10))
        #expect(torque.status == 502 && errorText(torque) == "underlying chart torque unavailable: http 500")
        await upstream.shutdown()
        await f.shutdown()
    }

    @Test func aSilentUnderlyingIsSkippedForAWhile() async throws {
        let f = try await TickerFixture()
        let upstream = try FakeUpstream { _ in
            try? await Task.sleep(for: .seconds(2))
            return jsonResponse(500, "{}")
        }
        let page = f.page(
            underlying: UnderlyingClient(baseURL: upstream.baseURL, http: testHTTPClient, logger: quietLogger()),
            timeout: .milliseconds(300))
        let command = ChartCommand(type: .regression, ticker: uniqueTicker(), period: .threeMonths, interval: .oneDay)
        let first = try decodeBody(ChartResponse.self, await page.charts.chart(command, deadline: .now + .seconds(10)))
        #expect(first.providerNote?.hasSuffix("(timed out)") == true)
        let started = ContinuousClock.now
        let second = try decodeBody(ChartResponse.self, await page.charts.chart(command, deadline: .now + .seconds(10)))
        #expect(ContinuousClock.now - started < .milliseconds(250))
        #expect(second.providerNote?.hasSuffix("(skipped after it timed out within the last 30 s)") == true)
        #expect(upstream.requestCount == 1)
        // A type only Underlying draws still asks.
        let torque = await page.charts.chart(
            ChartCommand(type: .torque, ticker: command.ticker, period: .twoYears, interval: .oneDay),
            deadline: .now + .seconds(1))
        #expect(torque.status == 502 && upstream.requestCount == 2)
        await upstream.shutdown()
        await f.shutdown()
    }

    @Test func noPriceDataIsA502() async throws {
        let f = try await TickerFixture()
        let page = f.page(underlying: try deadUnderlying())
        let reply = await page.charts.chart(
            ChartCommand(type: .price, ticker: "NODATA", period: .oneMonth, interval: .oneDay),
            deadline: .now + .seconds(10))
        #expect(
            reply.status == 502
                && String(decoding: reply.body, as: UTF8.self) == #"{"error":"price history unavailable"}"#)
        await f.shutdown()
    }

    @Test func summariesPassThroughAndMapFailures() async throws {
        let f = try await TickerFixture()
        let stored =
            #"{"ticker":"MCD","as_of":"2026-08-01","recommendation":{"action":"buy","strength":"normal","conviction":0.62,"one_line":"Buy"},"extra":{"kept":[1,2]}}"#
        let slow = Flag()
        let upstream = try FakeUpstream { request in
            if slow.isOn { try? await Task.sleep(for: .seconds(3)) }
            switch request.path {
            case "/api/prism/MCD/summary": return jsonResponse(200, stored)
            case "/api/situate/BUSY/summary":
                return HTTPResponse(
                    status: 503, headers: [("Retry-After", "7"), ("Content-Type", "application/json")],
                    body: Array("{}".utf8))
            default: return jsonResponse(404, #"{"error":"not built"}"#)
            }
        }
        let page = f.page(
            underlying: UnderlyingClient(baseURL: upstream.baseURL, http: testHTTPClient, logger: quietLogger()),
            timeout: .milliseconds(500))
        let deadline = ContinuousClock.now + .seconds(5)
        let passed = await page.research.summary(
            ResearchSummaryCommand(engine: .prism, ticker: "MCD"), deadline: deadline)
        #expect(passed.status == 200 && passed.body == Array(stored.utf8))
        let missing = await page.research.summary(
            ResearchSummaryCommand(engine: .situate, ticker: "MCD"), deadline: deadline)
        #expect(missing.status == 404)
        #expect(
            try decodeBody([String: String].self, missing) == [
                "error": "no Situate packet for this ticker yet — POST /v1/situate to build one",
                "code": "situate_packet_not_found",
            ])
        let busy = await page.research.summary(
            ResearchSummaryCommand(engine: .situate, ticker: "BUSY"), deadline: deadline)
        #expect(
            busy.status == 503 && header(busy, "Retry-After") == "7"
                && errorText(busy) == "Situate engine is busy; retry shortly")

        slow.set(true)
        let started = ContinuousClock.now
        let timedOut = await page.research.summary(
            ResearchSummaryCommand(engine: .prism, ticker: "MCD"), deadline: deadline)
        #expect(timedOut.status == 504 && errorText(timedOut) == "Prism engine timed out")
        #expect(ContinuousClock.now - started < .milliseconds(1500))

        let down = f.page(underlying: try deadUnderlying(), timeout: .milliseconds(500))
        let unreachable = await down.research.summary(
            ResearchSummaryCommand(engine: .prism, ticker: "MCD"), deadline: deadline)
        #expect(unreachable.status == 502 && errorText(unreachable) == "Prism engine is unreachable")
        let off = f.page(underlying: UnderlyingClient(baseURL: nil, http: testHTTPClient, logger: quietLogger()))
        #expect(
            await off.research.summary(ResearchSummaryCommand(engine: .prism, ticker: "MCD"), deadline: deadline).status
                == 503)
        await upstream.shutdown()
        await f.shutdown()
    }

    @Test func analysisIsNormalizedFromTheSnapshot() async throws {
        let f = try await TickerFixture()
        let upstream = try FakeUpstream { request in
            guard request.path == "/api/analysis/MCD" else { return jsonResponse(500, "{}") }
            return jsonResponse(
                200,
                """
                {"symbol":"MCD","company_name":"McDonald's","quote":{"regularMarketPrice":"297.5","change":1.5,\
                "fiftyTwoWeekHigh":326.3},"fundamentals":{"sector":"Consumer Cyclical","market_cap":"212B","trailingPE":25.1},\
                "change_percent":0.51,"annual_volatility":0.18,"summary":"short","analysis":"\(String(repeating: "A steady franchise. ", count: 3))",\
                "provider":"anthropic"}
                """)
        }
        let page = f.page(
            underlying: UnderlyingClient(baseURL: upstream.baseURL, http: testHTTPClient, logger: quietLogger()))
        let reply = await page.research.analysis(AnalysisCommand(ticker: "MCD"), deadline: .now + .seconds(5))
        #expect(reply.status == 200)
        let s = try decodeBody(AnalysisSnapshot.self, reply)
        #expect(s.ticker == "MCD" && s.name == "McDonald's" && s.sector == "Consumer Cyclical" && s.price == 297.5)
        #expect(s.change == 1.5 && s.changePercent == 0.51 && s.fiftyTwoWeekHigh == 326.3 && s.annualVolatility == 0.18)
        #expect(s.marketCap == .string("212B") && s.trailingPe == .number(25.1))
        #expect(s.brief?.hasPrefix("A steady franchise.") == true && s.briefProvider == "anthropic")
        #expect(s.sourceUrl == upstream.baseURL + "/" && s.industry == nil)
        let failed = await page.research.analysis(AnalysisCommand(ticker: "XOM"), deadline: .now + .seconds(5))
        #expect(failed.status == 502 && errorText(failed) == "underlying analysis 500")
        await upstream.shutdown()
        await f.shutdown()
    }
}
