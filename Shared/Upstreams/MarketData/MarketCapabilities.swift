/// The capabilities report: Massive's datasets (access `primary` with a key, else `unconfigured`), Yahoo's (a quote
/// and history fallback only), merged as the configuration says: a Massive primary without a key and a Yahoo
/// fallback → Yahoo's report over Massive's datasets; otherwise the primary's report with its unsupported datasets
/// filled from the fallback. Pure.
enum MarketCapabilities {
    typealias Dataset = MarketDataCapabilities.Dataset

    static func report(configuration: MarketDataConfiguration, settings: MarketSurfaceConfiguration)
        -> MarketDataCapabilities
    {
        let massive = massiveReport(configuration: configuration, settings: settings)
        let yahoo = yahooReport()
        let primary = configuration.primary == .yahoo ? yahoo : massive
        guard let fallbackName = configuration.fallback, fallbackName != configuration.primary else { return primary }
        let fallback = fallbackName == .yahoo ? yahoo : massive
        if !primary.configured && fallback.configured {
            var merged = fallback
            merged.datasets = primary.datasets.merging(fallback.datasets) { _, new in new }
            return merged
        }
        var merged = primary
        for (name, dataset) in fallback.datasets where dataset.supported && merged.datasets[name]?.supported != true {
            merged.datasets[name] = dataset
        }
        return merged
    }

    static func massiveReport(configuration: MarketDataConfiguration, settings: MarketSurfaceConfiguration)
        -> MarketDataCapabilities
    {
        let configured = configuration.massiveAPIKey != nil
        let access = configured ? "primary" : "unconfigured"
        func set(_ note: String, supported: Bool = true, access custom: String? = nil) -> Dataset {
            Dataset(supported: supported, access: custom ?? access, note: note)
        }
        let events = settings.corporateEventsEnabled
        return MarketDataCapabilities(
            provider: "massive", configured: configured, freshness: configuration.massiveFreshness.rawValue,
            subscription: .init(
                stocks: nonEmpty(settings.stocksPlan), options: nonEmpty(settings.optionsPlan),
                events: nonEmpty(settings.eventsPlan)),
            datasets: [
                "quotes": set("Snapshot endpoint; real-time availability follows the subscribed Stocks plan."),
                "trades": set(
                    "Last-trade and historical trade endpoints follow the subscribed Stocks or Options plan."),
                "aggregates": set("Stock and option bars come from Massive's aggregate endpoints."),
                "optionChain": set("Chain snapshots need an Options plan with chain access."),
                "optionContracts": set("Contract reference data is available on every Options plan."),
                "corporateActions": set("Dividends and splits are available on Stocks plans."),
                "corporateEvents": set(
                    "TMX / Wall Street Horizon events are an optional partner dataset, enabled only when subscribed.",
                    supported: events, access: events ? nil : "unconfigured"),
                "financialRatios": set("End-of-day ratios from trailing-twelve-month financials and the latest price."),
                "optionSnapshot": set(
                    "One contract's snapshot: Greeks, implied volatility, open interest, quote, trade."),
                "optionAggregates": set("Historical option OHLCV bars use the standard aggregate endpoint."),
                "websockets": set("Streaming needs a plan that includes the feed; connection limits apply."),
            ])
    }

    static func yahooReport() -> MarketDataCapabilities {
        let none = Dataset(supported: false, access: "unconfigured")
        return MarketDataCapabilities(
            provider: "yahoo", configured: true, freshness: MarketDataFreshness.delayed.rawValue,
            subscription: .init(),
            datasets: [
                "quotes": Dataset(
                    supported: true, access: "fallback", note: "Yahoo chart fallback; about 15 minutes delayed."),
                "history": Dataset(supported: true, access: "fallback", note: "Adjusted daily chart fallback."),
                "aggregates": none, "optionChain": none, "optionContracts": none, "corporateActions": none,
                "corporateEvents": none, "websockets": none,
            ])
    }

    private static func nonEmpty(_ s: String?) -> String? { s.flatMap { $0.isEmpty ? nil : $0 } }
}
