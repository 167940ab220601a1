import MarketData
import Redis
import Runtime

/// Massive's plan limit for all Rating replicas: one Redis token bucket of `perMinute` requests (burst one minute's
/// worth), reserved in arrival order with the server's clock. A caller whose slot lies past its deadline does not
/// reserve it. Redis unreachable → each replica paces itself locally at the same rate (slower overall, never faster
/// than the plan per replica).
public struct MassivePace: MarketDataPace {
    public let perMinute: Int
    private let redis: RedisClient?
    private let key: String
    private let local: LocalPace
    private let logger: Logger

    /// KEYS[1] bucket; ARGV rate per minute, deadline budget in ms (−1 none). Returns the wait in ms, or −1 when the
    /// slot would come after the budget (nothing reserved).
    static let script = """
        local rate = tonumber(ARGV[1])
        local budget = tonumber(ARGV[2])
        local t = redis.call('TIME')
        local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
        local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
        local tokens = tonumber(state[1]) or rate
        local ts = tonumber(state[2]) or now
        if now > ts then tokens = math.min(rate, tokens + (now - ts) * rate / 60000) end
        local wait = 0
        if tokens < 1 then wait = math.ceil((1 - tokens) * 60000 / rate) end
        if budget >= 0 and wait > budget then return -1 end
        redis.call('HSET', KEYS[1], 'tokens', tostring(tokens - 1), 'ts', tostring(math.max(now, ts)))
        redis.call('PEXPIRE', KEYS[1], 120000)
        return wait
        """

    public init(perMinute: Int, redis: RedisClient?, key: String = "mapvest:market:pace:massive", logger: Logger) {
        self.perMinute = max(1, perMinute)
        self.redis = redis
        self.key = key
        self.local = LocalPace(perMinute: max(1, perMinute))
        self.logger = logger
    }

    public func acquire(_ deadline: ContinuousClock.Instant?) async -> Bool {
        let budget = deadline.map { Int64(max(0, ($0 - .now).inMilliseconds)) } ?? -1
        var wait: Duration?
        if let redis {
            do {
                let reply = try await redis.eval(Self.script, keys: [key], args: [String(perMinute), String(budget)])
                guard let ms = reply.integer, ms >= 0 else { return false }
                wait = .milliseconds(ms)
            } catch {
                logger.debug("massive pace unavailable, pacing locally", [LogKeys.error: "\(error)"])
            }
        }
        if wait == nil { wait = await local.reserve(budget: budget) }
        guard let wait else { return false }
        if wait > .zero { try? await Task.sleep(for: wait) }
        return !Task.isCancelled
    }
}

/// The same bucket in process memory.
actor LocalPace {
    let perMinute: Int
    private var tokens: Double
    private var at = ContinuousClock.now

    init(perMinute: Int) {
        self.perMinute = perMinute
        self.tokens = Double(perMinute)
    }

    /// The wait for the next slot, reserved; nil (nothing reserved) when it exceeds `budget` ms (−1: no limit).
    func reserve(budget: Int64) -> Duration? {
        let now = ContinuousClock.now
        let rate = Double(perMinute) / 60_000
        tokens = min(Double(perMinute), tokens + (now - at).inMilliseconds * rate)
        at = now
        let wait = tokens >= 1 ? 0 : Int64(((1 - tokens) / rate).rounded(.up))
        if budget >= 0, wait > budget { return nil }
        tokens -= 1
        return .milliseconds(wait)
    }
}
