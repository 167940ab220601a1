import Charts
import MarketData
import RatingAdapters
import Redis
import Runtime

/// What the ticker page asks Rating for: quotes and price history, charts, and the Underlying proxies.
public struct TickerPage: Sendable {
    public let quotes: QuotePages
    public let charts: ChartService
    public let research: ResearchProxies
    /// Capabilities, aggregates, ratios and corporate events.
    public let surface: MarketSurfacePages
    /// The widgets' map snapshot, drawn on the chart renderer.
    public let snapshots: MapSnapshots

    public init(
        quotes: QuotePages, charts: ChartService, research: ResearchProxies, surface: MarketSurfacePages,
        snapshots: MapSnapshots
    ) {
        self.quotes = quotes
        self.charts = charts
        self.research = research
        self.surface = surface
        self.snapshots = snapshots
    }

    /// Reads `UNDERLYING_TIMEOUT_MS` (4000: analysis and summaries), `UNDERLYING_CHART_TIMEOUT_MS` (4000),
    /// `UNDERLYING_CHART_BACKOFF_MS` (30000, 0 = none), `CHART_RENDER_WORKERS` (2) and `CHART_MAX_WAITING` (32), each
    /// clamped to a sane range.
    public static func make(
        _ env: Environment, market: MarketDataClient, pages: MarketDataPages, underlying: UnderlyingClient,
        redis: RedisClient?, logger: Logger
    ) -> TickerPage {
        func setting(_ name: String, _ fallback: Int, _ range: ClosedRange<Int>) -> Int {
            min(range.upperBound, max(range.lowerBound, env.get(name, default: fallback)))
        }
        let histories = PriceHistoryStore(market: market, redis: redis, logger: logger)
        let renderer = ChartRenderer(
            workers: setting("CHART_RENDER_WORKERS", 2, 1...16), maxWaiting: setting("CHART_MAX_WAITING", 32, 1...1024))
        return TickerPage(
            quotes: QuotePages(market: market, histories: histories),
            charts: ChartService(
                histories: histories, underlying: underlying, renderer: renderer, redis: redis,
                underlyingTimeout: .milliseconds(setting("UNDERLYING_CHART_TIMEOUT_MS", 4000, 100...60_000)),
                underlyingBackoff: .milliseconds(setting("UNDERLYING_CHART_BACKOFF_MS", 30_000, 0...3_600_000)),
                logger: logger),
            research: ResearchProxies(
                underlying: underlying, timeout: .milliseconds(setting("UNDERLYING_TIMEOUT_MS", 4000, 100...60_000))),
            surface: MarketSurfacePages(pages: pages, redis: redis, logger: logger),
            snapshots: MapSnapshots(renderer: renderer))
    }
}
