import MCP
import Redis
import Runtime

/// The per-address allowance of MCP tool calls and relays, in Redis so every gateway replica shares it: a 60 s fixed
/// window per address (`mapvest:rl:mcp:<address>`). Redis unreachable → the call goes through (fail open), counted.
struct RedisCallLimiter: MCPCallLimiter {
    static let perMinute: Int64 = 40
    let redis: RedisClient
    let logger: Logger
    private let failOpen = MetricsRegistry.shared.counter(
        "gateway_mcp_limiter_fail_open_total", help: "MCP calls let through because the limiter store was unreachable")

    init(redis: RedisClient, logger: Logger) {
        self.redis = redis
        self.logger = logger
    }

    func admit(_ address: String) async -> Bool {
        guard !address.isEmpty else { return true }
        do {
            let hit = try await redis.fixedWindowHit(key: "mapvest:rl:mcp:" + address.prefix(128), window: .seconds(60))
            return hit.count <= Self.perMinute
        } catch {
            failOpen.increment()
            logger.warning("MCP limiter unavailable; failing open", [LogKeys.error: "\(error)"])
            return true
        }
    }
}

/// Whether the Rating service's shared cache holds a rating for a ticker (its key, `mapvest:rating:v1:<TICKER>`,
/// is `RatingService`'s in RatingAdapters). A cached rating costs nothing, so it never spends the daily
/// allowance of fresh ones; an unreachable Redis counts as not cached.
struct RatingCachePeek: Sendable {
    let redis: RedisClient?

    func isCached(_ ticker: String) async -> Bool {
        guard let redis, let reply = try? await redis.command("EXISTS", "mapvest:rating:v1:" + ticker) else {
            return false
        }
        return (reply.integer ?? 0) > 0
    }
}
