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

/// A Yahoo chart fake with OHLCV bars: a fixed synthetic series whose length follows `range`.
enum TickerFake {
    struct Bar {
        let ts: Int64
        let open, high, low, close, volume: Double
    }

    static let end: Int64 = 1_787_000_000

    static func count(range: String) -> Int {
        ["5d": 5, "1mo": 21, "3mo": 63, "6mo": 126, "1y": 252, "2y": 504][range] ?? 21
    }

    /// Drifting, wavy closes one calendar day apart, volume varying with a fixed pattern.
    static func bars(range: String) -> [Bar] {
        let n = count(range: range)
        return (0..<n).map { i in
            let close = 100 * exp(0.001 * Double(i) + 0.03 * sin(Double(i) / 5))
            return Bar(
                ts: end - Int64(n - 1 - i) * 86_400, open: close * 0.995, high: close * 1.01, low: close * 0.99,
                close: close, volume: 1_000_000 * (1 + Double((i * 7919) % 13) / 13))
        }
    }

    static func chartBody(_ symbol: String, _ bars: [Bar]) -> String {
        func list(_ f: (Bar) -> Double) -> String { bars.map { String(f($0)) }.joined(separator: ",") }
        return """
            {"chart":{"result":[{"meta":{"symbol":"\(symbol)","currency":"USD","regularMarketPrice":\(bars.last?.close ?? 1),\
            "chartPreviousClose":100,"regularMarketTime":\(end)},"timestamp":[\(bars.map { String($0.ts) }.joined(separator: ","))],\
            "indicators":{"quote":[{"open":[\(list(\.open))],"high":[\(list(\.high))],"low":[\(list(\.low))],\
            "close":[\(list(\.close))],"volume":[\(list(\.volume))]}]}}]}}
            """
    }

    static func handler(down: Flag) -> FakeUpstream.Handler {
        { request in
            guard !down.isOn else { return jsonResponse(500, "{}") }
            guard request.path.hasPrefix("/v7/finance/chart/") else { return jsonResponse(404, "{}") }
            let symbol = String(request.path.dropFirst("/v7/finance/chart/".count))
            guard symbol != "NODATA" else { return jsonResponse(404, "{\"chart\":{\"result\":null}}") }
            let range = request.query["range"] ?? "1mo"
            let bars = range == "1d" ? [bars(range: "5d").last].compactMap { $0 } : bars(range: range)
            return jsonResponse(200, chartBody(symbol, bars))
        }
    }

    static func market(_ fake: FakeUpstream) -> MarketDataClient {
        MarketDataClient(
            configuration: MarketDataConfiguration(primary: .yahoo, yahooBaseURL: fake.baseURL), http: testHTTPClient,
            logger: quietLogger())
    }
}

/// A tiny but real PNG (what Underlying would send), base64.
let underlyingPNG: String = {
    let png = try? ChartRenderer.draw(
        ChartRequest(
            kind: .price, ticker: "UP", period: "1mo",
            bars: [PriceBar(ts: 0, close: 1), PriceBar(ts: 86_400, close: 2)],
            source: "underlying", pixelWidth: 120, pixelHeight: 80, scale: 0.25))
    return Data(png?.png ?? []).base64EncodedString()
}()

/// Everything the ticker page needs, over fakes.
final class TickerFixture: Sendable {
    let yahoo: FakeUpstream
    let yahooDown = Flag()
    let redis: RedisClient

    init() async throws {
        yahoo = try FakeUpstream(TickerFake.handler(down: yahooDown))
        redis = try await redisClient()
    }

    func page(underlying: UnderlyingClient, timeout: Duration = .seconds(4)) -> TickerPage {
        let market = TickerFake.market(yahoo)
        let histories = PriceHistoryStore(market: market, redis: redis, logger: quietLogger())
        return TickerPage(
            quotes: QuotePages(market: market, histories: histories),
            charts: ChartService(
                histories: histories, underlying: underlying, renderer: ChartRenderer(workers: 2), redis: redis,
                underlyingTimeout: timeout, logger: quietLogger()),
            research: ResearchProxies(underlying: underlying, timeout: timeout),
            surface: MarketSurfacePages(
                pages: MarketDataPages(
                    configuration: market.configuration, settings: MarketSurfaceConfiguration(), http: testHTTPClient,
                    logger: quietLogger()), redis: redis, logger: quietLogger()),
            snapshots: MapSnapshots(renderer: ChartRenderer(workers: 1)))
    }

    func shutdown() async { await yahoo.shutdown() }
}

func deadUnderlying() throws -> UnderlyingClient {
    UnderlyingClient(baseURL: "http://127.0.0.1:\(try freePort())", http: testHTTPClient, logger: quietLogger())
}

func decodeBody<T: Decodable>(_ type: T.Type, _ reply: Reply) throws -> T {
    try JSONDecoder().decode(T.self, from: Data(reply.body))
}

func errorText(_ reply: Reply) -> String? {
    (try? JSONDecoder().decode([String: JSONValue].self, from: Data(reply.body)))?["error"].flatMap {
        if case .string(let s) = $0 { s } else { nil }
    }
}

func header(_ reply: Reply, _ name: String) -> String? {
    reply.headers.first { $0.0.lowercased() == name.lowercased() }?.1
}
