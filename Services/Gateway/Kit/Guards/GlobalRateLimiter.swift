import Foundation
import HTTPServer
import Redis
import Runtime

/// The global limiter (docs/COMPATIBILITY.md#rate-limit): 300 requests per 60 s fixed window per key, shared by every
/// gateway replica through Redis. Key precedence: a valid session (`u:<sub>`), else `X-Device-Id` (`d:<id>`), else the
/// client IP. If Redis is unreachable the gateway keeps serving (fail open) and says so in logs and metrics.
struct GlobalRateLimiter: Sendable {
    static let limit: Int64 = 300
    static let window: Duration = .seconds(60)

    let redis: RedisClient
    let logger: Logger
    private let failOpen = MetricsRegistry.shared.counter(
        "gateway_limiter_fail_open_total", help: "Requests let through because the limiter store was unreachable")

    init(redis: RedisClient, logger: Logger) {
        self.redis = redis
        self.logger = logger
    }

    /// Paths the limiter never counts.
    static func isExempt(method: String, path: String) -> Bool {
        method == "OPTIONS" || method == "HEAD" || path == "/v1/health" || path == "/v1/config"
            || path.hasPrefix("/v1/billing/webhook") || path == "/healthz" || path == "/readyz" || path == "/metrics"
    }

    static func key(for caller: Caller) -> String {
        if let session = caller.session { return "u:" + session.userId }
        if let device = caller.deviceId { return "d:" + device }
        return "ip:" + caller.clientIP
    }

    /// Counts the request; returns the 429 to send when over the limit, and the headers for every counted response.
    func check(_ caller: Caller) async -> (reject: HTTPResponse?, headers: [(String, String)]) {
        let hit: (count: Int64, resetInMs: Int64)
        do {
            hit = try await redis.fixedWindowHit(key: "mapvest:rl:global:" + Self.key(for: caller), window: Self.window)
        } catch {
            failOpen.increment()
            logger.warning("rate limiter unavailable; failing open", [LogKeys.error: "\(error)"])
            return (nil, [])
        }
        let resetSeconds = max(1, Int((hit.resetInMs + 999) / 1000))
        let resetEpoch = Int(Date().timeIntervalSince1970) + resetSeconds
        let headers = [
            ("X-RateLimit-Limit", String(Self.limit)),
            ("X-RateLimit-Remaining", String(max(0, Self.limit - hit.count))),
            ("X-RateLimit-Reset", String(resetEpoch)),
        ]
        guard hit.count > Self.limit else { return (nil, headers) }
        let body = RateLimited(error: "rate limit exceeded", retryAfter: resetSeconds)
        return (.json(429, body, headers: [("Retry-After", String(resetSeconds))]), headers)
    }

    struct RateLimited: Codable {
        let error: String
        let retryAfter: Int
    }
}
