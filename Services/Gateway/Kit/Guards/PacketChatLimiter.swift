import Contracts
import HTTPServer
import Redis
import Runtime

/// The Prism/Situate chat's own cap, on top of the global limiter: 30 turns per identity per hour and engine, a fixed
/// window shared by every replica through Redis (a refused turn still counts). The identity is the session's user
/// (`u:<sub>`), else the device (`d:<X-Device-Id>`). Redis unreachable → the turn passes (fail open), logged and
/// counted.
struct PacketChatLimiter: Sendable {
    static let limit: Int64 = 30
    static let window: Duration = .seconds(3600)

    let redis: RedisClient
    let logger: Logger
    private let failOpen = MetricsRegistry.shared.counter(
        "gateway_packet_chat_limiter_fail_open_total",
        help: "Prism/Situate chat turns let through because the limiter store was unreachable")

    init(redis: RedisClient, logger: Logger) {
        self.redis = redis
        self.logger = logger
    }

    /// Nil when the turn may go on; else the 429 `<engine>_chat_rate_limited` with `Retry-After`.
    func take(_ engine: ResearchEngine, identity: String) async -> HTTPResponse? {
        let hit: (count: Int64, resetInMs: Int64)
        do {
            hit = try await redis.fixedWindowHit(
                key: "mapvest:rl:\(engine.rawValue)-chat:" + identity, window: Self.window)
        } catch {
            failOpen.increment()
            logger.warning("packet chat limiter unavailable; failing open", [LogKeys.error: "\(error)"])
            return nil
        }
        guard hit.count > Self.limit else { return nil }
        let retryAfter = max(1, Int((hit.resetInMs + 999) / 1000))
        return .json(
            429,
            Refused(
                error: "too many \(engine.label) chat turns; retry in \(retryAfter)s",
                code: "\(engine.rawValue)_chat_rate_limited", limit: Int(Self.limit), retryAfter: retryAfter),
            headers: [("Retry-After", String(retryAfter))])
    }

    struct Refused: Encodable {
        let error: String
        let code: String
        let limit: Int
        let retryAfter: Int
    }
}
