import Contracts
import HTTPClient
import Runtime

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The market-data surface beyond quotes: capabilities, paged aggregates and ratios, corporate events. Only Massive
/// serves these datasets: a Yahoo primary answers 501 (unsupported), and so does a Massive failure when Yahoo is the
/// configured fallback (the fallback is tried, and it has no such dataset). Cursors go upstream as `cursor`
/// unchanged. No caching here: the Rating service caches whole answers in Redis.
public struct MarketDataPages: Sendable {
    public let configuration: MarketDataConfiguration
    public let settings: MarketSurfaceConfiguration
    let massive: MassiveRequester

    public init(
        configuration: MarketDataConfiguration, settings: MarketSurfaceConfiguration, http: HTTPClient,
        pace: MarketDataPace? = nil, logger: Logger
    ) {
        self.configuration = configuration
        self.settings = settings
        var base = configuration.massiveBaseURL
        while base.hasSuffix("/") { base.removeLast() }
        massive = MassiveRequester(
            base: base, apiKey: configuration.massiveAPIKey, settings: settings, http: http, logger: logger,
            pace: pace)
    }

    /// What the configured providers can serve (`MarketCapabilities.report`).
    public func capabilities() -> MarketDataCapabilities {
        MarketCapabilities.report(configuration: configuration, settings: settings)
    }

    /// One page of bars, oldest first.
    public func aggregates(_ query: AggregatesCommand) async -> Result<AggregatesResponse, MarketDataFailure> {
        await viaMassive {
            let path =
                "/v2/aggs/ticker/\(MarketSymbol.percentEncoded(query.symbol))/range/\(query.multiplier)/"
                + "\(query.timespan)/\(query.from)/\(query.to)"
            let params: [(String, String?)] = [
                ("adjusted", query.adjusted ? "true" : "false"), ("sort", "asc"), ("limit", "50000"),
                ("cursor", query.cursor),
            ]
            return await massive.get(path, params, kind: "aggregates").map { body in
                let page = MassivePages.page(body, MassivePages.bar)
                return AggregatesResponse(
                    symbol: query.symbol, from: query.from, to: query.to, multiplier: query.multiplier,
                    timespan: query.timespan, points: page.rows, nextCursor: page.nextCursor,
                    requestId: page.requestId, sources: [Self.source()])
            }
        }
    }

    /// One page of ratio rows.
    public func ratios(_ query: FinancialRatiosCommand) async -> Result<FinancialRatiosResponse, MarketDataFailure> {
        await viaMassive {
            let params: [(String, String?)] = [
                ("ticker", query.ticker), ("limit", String(query.limit)), ("cursor", query.cursor),
            ]
            return await massive.get("/stocks/financials/v1/ratios", params, kind: "ratios").map { body in
                let page = MassivePages.page(body, MassivePages.ratio)
                return FinancialRatiosResponse(
                    ticker: query.ticker, ratios: page.rows, nextCursor: page.nextCursor, requestId: page.requestId,
                    sources: [Self.source()])
            }
        }
    }

    /// Splits and dividends (in parallel), plus TMX events when subscribed (their failure only clears
    /// `tmxAvailable`), merged newest first.
    public func events(_ query: MarketEventsCommand) async -> Result<MarketEventsResponse, MarketDataFailure> {
        await viaMassive {
            let limit = String(min(query.limit, 250))
            async let splits = massive.get(
                "/stocks/v1/splits",
                [
                    ("ticker", query.ticker), ("execution_date.gte", query.from), ("execution_date.lte", query.to),
                    ("limit", limit),
                ], kind: "splits")
            async let dividends = massive.get(
                "/stocks/v1/dividends",
                [
                    ("ticker", query.ticker), ("ex_dividend_date.gte", query.from),
                    ("ex_dividend_date.lte", query.to), ("limit", limit),
                ], kind: "dividends")
            async let partner: Result<[UInt8], MarketDataFailure>? =
                settings.corporateEventsEnabled
                ? massive.get(
                    "/tmx/v1/corporate-events",
                    [
                        ("ticker", query.ticker), ("date.gte", query.from), ("date.lte", query.to), ("limit", limit),
                        ("sort", "date.desc"),
                    ], kind: "corporate_events") : nil
            let (splitBody, dividendBody, partnerBody) = await (splits, dividends, partner)
            let splitBytes: [UInt8]
            let dividendBytes: [UInt8]
            switch (splitBody, dividendBody) {
            case (.success(let s), .success(let d)): (splitBytes, dividendBytes) = (s, d)
            case (.failure(let f), _), (_, .failure(let f)): return .failure(f)
            }
            var events = MassivePages.results(splitBytes).compactMap { MassiveEvents.split($0, ticker: query.ticker) }
            events += MassivePages.results(dividendBytes).compactMap {
                MassiveEvents.dividend($0, ticker: query.ticker)
            }
            var tmxAvailable = false
            if case .success(let body)? = partnerBody {
                tmxAvailable = true
                events += MassivePages.results(body).compactMap { MassiveEvents.tmx($0, ticker: query.ticker) }
            }
            return .success(
                MarketEventsResponse(
                    ticker: query.ticker,
                    events: MassiveEvents.merge(events, from: query.from, to: query.to, limit: query.limit),
                    tmxAvailable: tmxAvailable, sources: [Self.source()]))
        }
    }

    /// Runs a Massive-only operation under the provider rules above.
    func viaMassive<T>(_ work: () async -> Result<T, MarketDataFailure>) async -> Result<T, MarketDataFailure> {
        guard configuration.primary == .massive else { return .failure(.unsupported) }
        let result = await work()
        if case .failure = result, configuration.fallback == .yahoo { return .failure(.unsupported) }
        return result
    }

    /// `{provider: massive, url: https://massive.com/docs, fetchedAt: now, confidence: high}`.
    static func source() -> Source {
        Source(
            provider: .massive, url: "https://massive.com/docs",
            fetchedAt: Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)), confidence: .high)
    }
}
