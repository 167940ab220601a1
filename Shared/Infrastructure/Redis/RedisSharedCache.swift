import Foundation
import Runtime

/// A cache shared by every replica, in Redis, with one computation per key at a time: concurrent callers in one
/// process share the first caller's computation (`SingleFlight`), and across replicas a short `SET NX PX` lock
/// makes the others wait briefly for the winner's answer before computing it themselves
/// (docs/decisions/0025-shared-redis-caches.md).
///
/// Values are JSON under `<prefix><key>`; the lock is `<prefix>lock:<key>`. Redis failures never fail a caller:
/// a read error is a miss, a write error is logged. Without a client it only single-flights.
public struct RedisSharedCache<Value: Codable & Sendable>: Sendable {
    /// Whether an answer came from the cache or from this caller's (shared) computation.
    public enum Origin: String, Sendable {
        case cached, computed
    }

    public let prefix: String
    /// How long the cross-replica lock holds (the computation's expected upper bound).
    public let lockTTL: Duration
    /// How long a caller that lost the lock polls for the winner's answer before computing anyway.
    public let waitForOther: Duration
    private let redis: RedisClient?
    private let flights = SingleFlight<String, Outcome>()
    private let logger: Logger

    /// The shared result of one flight.
    public struct Outcome: Sendable {
        public let value: Value
        public let origin: Origin
    }

    public init(
        redis: RedisClient?, prefix: String, lockTTL: Duration = .seconds(10), waitForOther: Duration = .seconds(2),
        logger: Logger
    ) {
        self.redis = redis
        self.prefix = prefix
        self.lockTTL = lockTTL
        self.waitForOther = waitForOther
        self.logger = logger
    }

    /// The cached value for `key`, or nil (absent, expired, undecodable or Redis unreachable).
    public func get(_ key: String) async -> Value? {
        guard let redis else { return nil }
        do {
            guard let bytes = try await redis.get(prefix + key) else { return nil }
            return try? JSONDecoder().decode(Value.self, from: Data(bytes))
        } catch {
            logger.debug("shared cache read failed", [LogKeys.cachePrefix: .string(prefix), LogKeys.error: "\(error)"])
            return nil
        }
    }

    /// Values for many keys in one `MGET`; absent keys are missing from the result.
    public func get(_ keys: [String]) async -> [String: Value] {
        guard let redis, !keys.isEmpty else { return [:] }
        let unique = Array(Set(keys))
        do {
            let reply = try await redis.command([Array("MGET".utf8)] + unique.map { Array((prefix + $0).utf8) })
            guard let values = reply.array, values.count == unique.count else { return [:] }
            var out: [String: Value] = [:]
            for (key, value) in zip(unique, values) {
                guard case .string(let bytes) = value,
                    let decoded = try? JSONDecoder().decode(Value.self, from: Data(bytes))
                else { continue }
                out[key] = decoded
            }
            return out
        } catch {
            logger.debug("shared cache read failed", [LogKeys.cachePrefix: .string(prefix), LogKeys.error: "\(error)"])
            return [:]
        }
    }

    /// Stores `value` for `ttl`.
    public func put(_ key: String, _ value: Value, ttl: Duration) async {
        guard let redis, ttl > .zero, let bytes = try? JSONEncoder().encode(value) else { return }
        do {
            try await redis.set(prefix + key, Array(bytes), ttl: ttl)
        } catch {
            logger.warning(
                "shared cache write failed", [LogKeys.cachePrefix: .string(prefix), LogKeys.error: "\(error)"])
        }
    }

    /// Takes the cross-replica lock for `key`; true when this caller should compute (also when Redis is down).
    public func claim(_ key: String) async -> Bool {
        guard let redis else { return true }
        return (try? await redis.set(prefix + "lock:" + key, [1], ttl: lockTTL, onlyIfAbsent: true)) ?? true
    }

    /// Releases a lock taken with `claim`.
    public func release(_ key: String) async {
        guard let redis else { return }
        _ = try? await redis.delete(prefix + "lock:" + key)
    }

    /// The cached value, or one shared computation's. `ttl` decides whether (and how long) a computed value is
    /// stored: nil keeps it out of the cache (e.g. a fallback answer or a failure).
    public func value(
        _ key: String, ttl: @escaping @Sendable (Value) -> Duration?, compute: @escaping @Sendable () async -> Value
    ) async -> Outcome {
        await flights.run(key) { [self] in
            if let hit = await get(key) { return Outcome(value: hit, origin: .cached) }
            let owner = await claim(key)
            if !owner {
                let deadline = ContinuousClock.now + waitForOther
                while ContinuousClock.now < deadline {
                    try? await Task.sleep(for: .milliseconds(50))
                    if let hit = await get(key) { return Outcome(value: hit, origin: .cached) }
                }
            }
            let value = await compute()
            if let ttl = ttl(value) { await put(key, value, ttl: ttl) }
            if owner { await release(key) }
            return Outcome(value: value, origin: .computed)
        }
    }
}
