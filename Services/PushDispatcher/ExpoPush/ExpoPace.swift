import Redis
import Runtime

/// Expo's 600 notifications/s is per project, so every dispatcher replica draws from one Redis token bucket
/// (docs/decisions/0028-push-ownership-and-delivery.md). `reserve(n)` takes `n` tokens at once — the bucket may go into
/// debt — and returns how long the caller must wait before sending, so callers are served in arrival order without
/// polling. A rate of 0 means unpaced (benchmarks). When Redis fails, the caller waits `n / rate` locally: slower than
/// allowed, never faster.
public struct ExpoPace: Sendable {
    /// Notifications per second for all replicas together; 0 disables pacing.
    public let ratePerSecond: Int
    /// Bucket size: at most one second of burst.
    public let burst: Int
    private let redis: RedisClient?
    private let key: String
    private let logger: Logger

    private static let waits = MetricsRegistry.shared.histogram(
        "push_expo_pace_wait_seconds", help: "Time a batch waited for the shared Expo pace")

    /// KEYS[1] bucket; ARGV rate/s, burst, n. Uses the server clock so replicas agree. Returns the wait in ms.
    static let script = """
        local rate = tonumber(ARGV[1])
        local burst = tonumber(ARGV[2])
        local n = tonumber(ARGV[3])
        local t = redis.call('TIME')
        local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
        local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
        local tokens = tonumber(state[1])
        local ts = tonumber(state[2])
        if tokens == nil or ts == nil then
            tokens = burst
            ts = now
        end
        if now > ts then tokens = math.min(burst, tokens + (now - ts) * rate / 1000) end
        tokens = tokens - n
        redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(math.max(now, ts)))
        redis.call('PEXPIRE', KEYS[1], 600000)
        if tokens >= 0 then return 0 end
        return math.ceil(-tokens * 1000 / rate)
        """

    public init(ratePerSecond: Int, redis: RedisClient?, key: String = "mapvest:push:expo-pace", logger: Logger) {
        self.ratePerSecond = max(0, ratePerSecond)
        self.burst = max(1, ratePerSecond)
        self.redis = redis
        self.key = key
        self.logger = logger
    }

    /// Waits until `count` notifications may be sent.
    public func acquire(_ count: Int) async {
        guard ratePerSecond > 0, count > 0 else { return }
        let wait = await reserve(count)
        if wait > .zero {
            Self.waits.observe(wait.inSeconds)
            try? await Task.sleep(for: wait)
        }
    }

    /// Takes `count` tokens and returns the wait before they may be used.
    public func reserve(_ count: Int) async -> Duration {
        guard ratePerSecond > 0, count > 0 else { return .zero }
        guard let redis else { return .milliseconds(Int64(count) * 1000 / Int64(ratePerSecond)) }
        do {
            let reply = try await redis.eval(
                Self.script, keys: [key], args: [String(ratePerSecond), String(burst), String(count)])
            guard let ms = reply.integer, ms >= 0 else {
                return .milliseconds(Int64(count) * 1000 / Int64(ratePerSecond))
            }
            return .milliseconds(ms)
        } catch {
            logger.warning("expo pace unavailable, pacing locally", [LogKeys.error: .string("\(error)")])
            return .milliseconds(Int64(count) * 1000 / Int64(ratePerSecond))
        }
    }
}
