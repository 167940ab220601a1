import Foundation
import HTTPServer
import Redis
import Runtime

/// The market-data routes' own limiter, on top of the global one (docs/COMPATIBILITY.md#market-data-surface): 60
/// requests per 60 s fixed window per key, shared by every replica through Redis. The key is the session's user
/// (`u:<sub>`), else the client address under `TRUSTED_PROXY_HOPS` (`ip:<address>`); `X-Device-Id` is ignored.
/// Redis unreachable → the request passes (fail open), logged and counted like the global limiter.
struct MarketDataRateLimiter: Sendable {
    static let limit: Int64 = 60
    static let window: Duration = .seconds(60)

    let redis: RedisClient
    let logger: Logger
    private let failOpen = MetricsRegistry.shared.counter(
        "gateway_market_limiter_fail_open_total",
        help: "Market-data requests let through because the limiter store was unreachable")

    init(redis: RedisClient, logger: Logger) {
        self.redis = redis
        self.logger = logger
    }

    static func key(for caller: Caller) -> String {
        if let session = caller.session { return "u:" + session.userId }
        return "ip:" + caller.clientIP
    }

    /// The route guard: counts the request, rejects it past the limit, and adds the two headers to every answer.
    func check(_ caller: Caller, _ head: HTTPRequestHead) async -> (reject: HTTPResponse?, headers: [(String, String)])
    {
        let hit: (count: Int64, resetInMs: Int64)
        do {
            hit = try await redis.fixedWindowHit(key: "mapvest:rl:market:" + Self.key(for: caller), window: Self.window)
        } catch {
            failOpen.increment()
            logger.warning("market data limiter unavailable; failing open", [LogKeys.error: "\(error)"])
            return (nil, [])
        }
        let headers = [
            ("X-Market-Data-RateLimit-Limit", String(Self.limit)),
            ("X-Market-Data-RateLimit-Remaining", String(max(0, Self.limit - hit.count))),
        ]
        guard hit.count > Self.limit else { return (nil, headers) }
        let retryAfter = max(1, Int((hit.resetInMs + 999) / 1000))
        let body = GlobalRateLimiter.RateLimited(error: "market data rate limit exceeded", retryAfter: retryAfter)
        return (.json(429, body, headers: [("Retry-After", String(retryAfter))]), headers)
    }
}
