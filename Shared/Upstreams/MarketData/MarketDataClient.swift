import Contracts
import HTTPClient
import Runtime
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The one place that picks market-data upstreams and normalizes their answers (docs/COMPATIBILITY.md#market-data).
///
/// Quotes: the primary provider (Massive by default), then Yahoo only when configured as the fallback. A Massive
/// primary without a key is skipped (logged once). Answers, empty ones included, are cached 30 s per symbol and
/// concurrent callers for a symbol share one upstream request. History comes from Massive's aggregates when Massive
/// is the primary and has a key, else (and when Massive fails) from Yahoo's chart endpoint (cached 30 min); news from Massive reference news (cached 10 min when it succeeds). Nothing here throws, and callers
/// learn which upstream answered only through `Quote.provider`. Keys never appear in URLs or logs. With a `pace`,
/// every Massive request (quotes, history, news, ratios) first waits for a slot of the plan's pace, the one the
/// market-data surface uses; a slot later than the caller's `TaskDeadline` is no answer, as an upstream failure is.
public final class MarketDataClient: Sendable {
    public let configuration: MarketDataConfiguration
    private let http: HTTPClient
    private let pace: MarketDataPace?
    private let logger: Logger
    private let quotes: SingleFlightCache<String, Quote?>
    private let histories: SingleFlightCache<String, PriceHistory?>
    private let headlines: SingleFlightCache<String, [NewsItem]?>
    private let ratioRows: SingleFlightCache<String, FinancialRatios?>
    private let reportedMassiveUnusable = Atomic<Bool>(false)

    public init(
        configuration: MarketDataConfiguration, http: HTTPClient, pace: MarketDataPace? = nil,
        logger: Logger
    ) {
        self.configuration = configuration
        self.http = http
        self.pace = pace
        self.logger = logger
        self.quotes = SingleFlightCache(ttl: configuration.quoteTTL)
        self.histories = SingleFlightCache(ttl: configuration.historyTTL)
        self.headlines = SingleFlightCache(ttl: configuration.newsTTL)
        self.ratioRows = SingleFlightCache(ttl: configuration.ratiosTTL)
    }

    /// A client configured by `MarketDataConfiguration.fromEnvironment(env)`.
    public static func fromEnvironment(
        _ env: Environment, http: HTTPClient, pace: MarketDataPace? = nil, logger: Logger
    ) -> MarketDataClient {
        MarketDataClient(configuration: .fromEnvironment(env), http: http, pace: pace, logger: logger)
    }

    /// The quote for `symbol` (trimmed, upper-cased, validated), or nil when the symbol is invalid or no
    /// provider had one.
    public func quote(_ symbol: String) async -> Quote? {
        guard let sym = MarketSymbol.normalize(symbol) else { return nil }
        return await quotes.value(for: sym) { [self] in await fetchQuote(sym) }
    }

    /// Closes for `symbol`, oldest first (the closes of `priceHistory`).
    public func history(
        _ symbol: String, period: HistoryPeriod = .threeMonths, interval: HistoryInterval = .oneDay
    ) async -> [HistoryPoint]? {
        await priceHistory(symbol, period: period, interval: interval)?.bars.map {
            HistoryPoint(ts: $0.ts, close: $0.close)
        }
    }

    /// OHLCV bars for `symbol`, oldest first, naming the provider that answered (`historyProviders`); nil when
    /// invalid, failed or fewer than two bars. A 15-minute interval is limited to 5d/1mo periods (longer ones become 5d), as
    /// Yahoo requires.
    public func priceHistory(
        _ symbol: String, period: HistoryPeriod = .threeMonths, interval: HistoryInterval = .oneDay
    ) async -> PriceHistory? {
        guard let sym = MarketSymbol.normalize(symbol) else { return nil }
        let range: HistoryPeriod =
            interval == .fifteenMinutes && period != .fiveDays && period != .oneMonth ? .fiveDays : period
        let key = "\(sym)::\(range.rawValue)::\(interval.rawValue)"
        return await histories.value(for: key) { [self] in await fetchHistory(sym, range: range, interval: interval) }
    }

    /// Up to `limit` (1…25, default 6) headlines for `ticker`, newest first, from Massive reference news.
    /// An invalid ticker, a missing Massive key or an upstream failure gives no items and `provider: "error"`.
    public func news(_ ticker: String, limit: Int = 6) async -> MarketNews {
        guard let sym = MarketSymbol.normalize(ticker) else { return MarketNews(items: [], provider: "error") }
        let cap = min(max(limit, 1), 25)
        let items = await headlines.value(for: sym, keep: { $0 != nil }) { [self] in await fetchNews(sym) }
        guard let items else { return MarketNews(items: [], provider: "error") }
        return MarketNews(items: Array(items.prefix(cap)), provider: MarketDataProvider.massive.rawValue)
    }

    /// The latest financial ratios for `symbol` from Massive (cached `ratiosTTL` when found); nil when the symbol is
    /// invalid, Massive has no key, or the provider has no usable row.
    public func ratios(_ symbol: String) async -> FinancialRatios? {
        guard let sym = MarketSymbol.normalize(symbol) else { return nil }
        return await ratioRows.value(for: sym, keep: { $0 != nil }) { [self] in
            guard isUsable(.massive) else { return nil }
            let url =
                "\(base(configuration.massiveBaseURL))/stocks/financials/v1/ratios?ticker=\(MarketSymbol.percentEncoded(sym))"
                + "&limit=1"
            return await get(provider: .massive, kind: "ratios", url: url).flatMap(MassiveRatios.ratios(from:))
        }
    }

    /// Providers tried for a history, in order: Massive when it is the primary and has a key, then Yahoo (history has
    /// always been available from Yahoo, fallback configured or not).
    var historyProviders: [MarketDataProvider] {
        configuration.primary == .massive && isUsable(.massive) ? [.massive, .yahoo] : [.yahoo]
    }

    /// Providers tried for a quote, in order.
    var quoteProviders: [MarketDataProvider] {
        var list: [MarketDataProvider] = []
        if isUsable(configuration.primary) { list.append(configuration.primary) }
        if let fallback = configuration.fallback, fallback != configuration.primary, isUsable(fallback) {
            list.append(fallback)
        }
        return list
    }

    // MARK: - Fetching

    private func isUsable(_ provider: MarketDataProvider) -> Bool {
        switch provider {
        case .yahoo: return true
        case .massive:
            if configuration.massiveAPIKey != nil { return true }
            reportMassiveUnusable()
            return false
        }
    }

    private func reportMassiveUnusable() {
        guard !reportedMassiveUnusable.exchange(true, ordering: .relaxed) else { return }
        let fallback = configuration.fallback == .yahoo ? "yahoo" : "none"
        logger.warning(
            "market data: Massive is configured but MASSIVE_API_KEY is not set; Massive is skipped",
            [LogKeys.marketPrimary: .string(configuration.primary.rawValue), LogKeys.marketFallback: .string(fallback)])
    }

    private func fetchQuote(_ sym: String) async -> Quote? {
        for provider in quoteProviders {
            let quote: Quote?
            switch provider {
            case .yahoo:
                let body = await get(
                    provider: .yahoo, kind: "quote",
                    url:
                        "\(base(configuration.yahooBaseURL))/v7/finance/chart/\(MarketSymbol.percentEncoded(sym))?interval=1d&range=1d"
                )
                quote = body.flatMap { YahooChart.quote(from: $0, symbol: sym) }
            case .massive:
                let body = await get(
                    provider: .massive, kind: "quote",
                    url:
                        "\(base(configuration.massiveBaseURL))/v2/snapshot/locale/us/markets/stocks/tickers/\(MarketSymbol.percentEncoded(sym))"
                )
                quote = body.flatMap {
                    MassiveSnapshot.quote(from: $0, symbol: sym, freshness: configuration.massiveFreshness)
                }
            }
            if let quote { return quote }
        }
        return nil
    }

    private func fetchHistory(_ sym: String, range: HistoryPeriod, interval: HistoryInterval) async -> PriceHistory? {
        for provider in historyProviders {
            let bars: [PriceBar]?
            switch provider {
            case .massive:
                let url =
                    base(configuration.massiveBaseURL)
                    + MassiveAggregates.path(sym, range: range, interval: interval, now: Date())
                bars = await get(provider: .massive, kind: "history", url: url).flatMap {
                    MassiveAggregates.bars(from: $0, range: range)
                }
            case .yahoo:
                let url =
                    "\(base(configuration.yahooBaseURL))/v7/finance/chart/\(MarketSymbol.percentEncoded(sym))"
                    + "?interval=\(interval.rawValue)&range=\(range.rawValue)"
                bars = await get(provider: .yahoo, kind: "history", url: url).flatMap(YahooChart.bars(from:))
            }
            if let bars { return PriceHistory(provider: provider, bars: bars) }
        }
        return nil
    }

    private func fetchNews(_ sym: String) async -> [NewsItem]? {
        guard isUsable(.massive) else { return nil }
        let url =
            "\(base(configuration.massiveBaseURL))/v2/reference/news?ticker=\(MarketSymbol.percentEncoded(sym))"
            + "&limit=25&order=desc&sort=published_utc"
        return await get(provider: .massive, kind: "news", url: url).flatMap(MassiveSnapshot.news(from:))
    }

    /// One GET; the body of a 2xx answer, or nil (logged and counted).
    func get(provider: MarketDataProvider, kind: String, url: String) async -> [UInt8]? {
        var request = HTTPClientRequest(url: url)
        request.headers = [("Accept", "application/json")]
        switch provider {
        case .yahoo:
            request.headers.append(("User-Agent", YahooChart.userAgent))
        case .massive:
            guard let key = configuration.massiveAPIKey else { return nil }
            request.headers.append(("Authorization", "Bearer \(key)"))
            if let pace, !(await pace.acquire(TaskDeadline.current)) {
                count(provider: provider, kind: kind, outcome: "paced_out")
                return nil
            }
        }
        request.timeout = configuration.requestTimeout
        request.connectTimeout = min(request.connectTimeout, configuration.requestTimeout)
        let start = ContinuousClock.now
        var outcome: String
        var status: Int?
        var body: [UInt8]?
        do {
            let response = try await http.execute(request)
            status = response.status
            if (200..<300).contains(response.status) {
                outcome = "ok"
                body = response.body
            } else {
                outcome = "http_error"
            }
        } catch {
            switch error.kind {
            case .timeout: outcome = "timeout"
            case .cancelled: outcome = "cancelled"
            case .connect, .other: outcome = "network_error"
            }
        }
        count(provider: provider, kind: kind, outcome: outcome)
        if body == nil {
            var fields: [String: LogValue] = [
                LogKeys.marketProvider: .string(provider.rawValue), LogKeys.marketKind: .string(kind),
                LogKeys.marketOutcome: .string(outcome),
                LogKeys.durationMs: .int(Int((ContinuousClock.now - start).inMilliseconds)),
            ]
            if let status { fields[LogKeys.httpStatus] = .int(status) }
            logger.warning("market data request failed", fields)
        }
        return body
    }

    private func count(provider: MarketDataProvider, kind: String, outcome: String) {
        MetricsRegistry.shared.counter(
            MetricNames.marketDataRequests, help: "Market data upstream requests",
            labels: ["provider": provider.rawValue, "kind": kind, "outcome": outcome]
        ).increment()
    }

    private func base(_ url: String) -> String {
        var s = url
        while s.hasSuffix("/") { s.removeLast() }
        return s
    }
}
