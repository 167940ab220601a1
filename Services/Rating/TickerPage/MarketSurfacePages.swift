import Contracts
import MarketData
import Messaging
import Redis
import Runtime

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The market-data surface (docs/COMPATIBILITY.md#market-data-surface): capabilities, aggregates, ratios and
/// corporate events. Successful answers are kept whole in Redis for every replica (`mapvest:market:v1:<command>`),
/// one upstream call per key at a time; failures are never cached and never replaced by an older answer. Every
/// answer says how old it is (`Age`) and whether it came from the cache (`X-Market-Data-Cache: hit|miss`).
public struct MarketSurfacePages: Sendable {
    /// An answer as cached: the status, the JSON body and when it was fetched (unix seconds).
    struct Answer: Codable, Sendable {
        var status: Int
        var body: String
        var fetchedAt: Double
    }

    /// How long a successful answer is served from the cache.
    enum Freshness {
        /// Intraday bars (minute, hour): one minute, as quotes move.
        static let intradayBars: Duration = .seconds(60)
        /// Daily and longer bars: 30 min, the original's price-history cache.
        static let bars: Duration = .seconds(30 * 60)
        /// End-of-day ratios: 1 h, the ratio cache the rating already uses.
        static let ratios: Duration = .seconds(60 * 60)
        /// Splits, dividends and partner events: 1 h.
        static let events: Duration = .seconds(60 * 60)
    }

    let pages: MarketDataPages
    let cache: RedisSharedCache<Answer>

    public init(pages: MarketDataPages, redis: RedisClient?, logger: Logger) {
        self.pages = pages
        self.cache = RedisSharedCache(
            redis: redis, prefix: "mapvest:market:v1:", lockTTL: .seconds(6), waitForOther: .seconds(2),
            logger: logger)
    }

    /// `MarketDataCapabilities`, computed from the configuration (nothing to fetch).
    public func capabilities() -> Reply {
        .json(200, pages.capabilities())
    }

    /// One page of bars.
    public func aggregates(_ command: AggregatesCommand) async -> Reply {
        let ttl = ["minute", "hour"].contains(command.timespan) ? Freshness.intradayBars : Freshness.bars
        return await answer(AggregatesCommand.name, command, ttl: ttl) {
            Self.reply(await pages.aggregates(command)) { failure in
                switch failure.status {
                case 429: (429, "market data rate limited")
                case 503: (503, "market data unavailable")
                default: (502, "market data unavailable")
                }
            }
        }
    }

    /// One page of ratio rows.
    public func ratios(_ command: FinancialRatiosCommand) async -> Reply {
        await answer(FinancialRatiosCommand.name, command, ttl: Freshness.ratios) {
            Self.reply(await pages.ratios(command)) { failure in
                switch failure.status {
                case 429: (429, "market data rate limited")
                case 503: (503, "financial ratios unavailable")
                case 501: (501, "financial ratios unsupported")
                default: (502, "financial ratios unavailable")
                }
            }
        }
    }

    /// Splits, dividends and partner events, newest first.
    public func events(_ command: MarketEventsCommand) async -> Reply {
        await answer(MarketEventsCommand.name, command, ttl: Freshness.events) {
            Self.reply(await pages.events(command)) { failure in
                switch failure.status {
                case 429: (429, "market data rate limited")
                case 503: (503, "market data provider not configured")
                default: (502, "market events unavailable")
                }
            }
        }
    }

    /// The cached answer for `command`, or one shared computation's (cached for `ttl` when it is a 200).
    func answer<C: Encodable>(
        _ name: String, _ command: C, ttl: Duration, compute: @escaping @Sendable () async -> Answer
    ) async -> Reply {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let key = name + ":" + String(decoding: (try? encoder.encode(command)) ?? Data(), as: UTF8.self)
        let outcome = await cache.value(key, ttl: { $0.status == 200 ? ttl : nil }, compute: compute)
        let age = max(0, Int(Date().timeIntervalSince1970 - outcome.value.fetchedAt))
        return Reply(
            status: outcome.value.status, body: Array(outcome.value.body.utf8),
            headers: [
                ("Age", String(age)),
                ("X-Market-Data-Cache", outcome.origin == .cached ? "hit" : "miss"),
            ])
    }

    /// A 200 with the page, or the route's error for the failure.
    static func reply<T: Encodable>(
        _ result: Result<T, MarketDataFailure>, errors: (MarketDataFailure) -> (Int, String)
    ) -> Answer {
        let now = Date().timeIntervalSince1970
        switch result {
        case .success(let page):
            guard let body = try? WireJSON.encode(page) else {
                return Answer(
                    status: 500, body: String(decoding: JSONText.errorBody("internal error"), as: UTF8.self),
                    fetchedAt: now)
            }
            return Answer(status: 200, body: String(decoding: body, as: UTF8.self), fetchedAt: now)
        case .failure(let failure):
            let (status, message) = errors(failure)
            return Answer(
                status: status, body: String(decoding: JSONText.errorBody(message), as: UTF8.self), fetchedAt: now)
        }
    }
}
