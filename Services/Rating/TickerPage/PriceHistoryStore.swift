import Contracts
import Foundation
import MarketData
import Redis
import Runtime

/// Price histories shared by every Rating replica: Redis, 30 minutes per symbol, period and interval
/// (docs/COMPATIBILITY.md#caches), one provider request per key across replicas (`RedisSharedCache`). Failures are
/// not cached.
public struct PriceHistoryStore: Sendable {
    /// A history and when it was fetched (the `sources[].fetchedAt` every replica then reports).
    public struct Entry: Codable, Sendable, Equatable {
        public var history: PriceHistory
        public var fetchedAt: String
    }

    public static let ttl: Duration = .seconds(30 * 60)

    let market: MarketDataClient
    private let cache: RedisSharedCache<Entry?>

    public init(market: MarketDataClient, redis: RedisClient?, logger: Logger) {
        self.market = market
        self.cache = RedisSharedCache(redis: redis, prefix: "mapvest:history:v1:", lockTTL: .seconds(6), logger: logger)
    }

    /// The bars for `symbol`, or nil when the symbol is invalid or no provider had a usable series.
    public func history(_ symbol: String, period: PricePeriod, interval: PriceInterval) async -> Entry? {
        guard let sym = MarketSymbol.normalize(symbol) else { return nil }
        let bars = Self.marketInterval(interval)
        let outcome = await cache.value(
            "\(sym)::\(period.rawValue)::\(bars.rawValue)", ttl: { $0 == nil ? nil : Self.ttl }
        ) { [market] in
            await market.priceHistory(sym, period: period, interval: bars).map {
                Entry(history: $0, fetchedAt: Timestamp.iso8601(Date()))
            }
        }
        MetricsRegistry.shared.counter(
            "price_history_requests_total", help: "Price history reads by where the answer came from",
            labels: ["origin": outcome.value == nil ? "unavailable" : outcome.origin.rawValue]
        ).increment()
        return outcome.value
    }

    static func marketInterval(_ interval: PriceInterval) -> HistoryInterval {
        switch interval {
        case .fifteenMinutes: .fifteenMinutes
        case .oneDay: .oneDay
        case .oneWeek: .oneWeek
        }
    }
}
