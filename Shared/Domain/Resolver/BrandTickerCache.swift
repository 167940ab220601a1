import Contracts
import Finance
import Foundation
import Postgres
import Redis
import Runtime

/// Brand → ticker cache: Redis (7 days) in front of the durable `finance.brand_ticker_cache` table. Any service that
/// uses the resolver may write it (idempotent upserts); losing Redis loses nothing.
public struct BrandTickerCache: Sendable {
    public static let ttl: Duration = .seconds(7 * 24 * 3600)

    let redis: RedisClient?
    let db: PostgresPool?
    let logger: Logger

    public init(redis: RedisClient?, db: PostgresPool?, logger: Logger) {
        self.redis = redis
        self.db = db
        self.logger = logger
        _ = BrandCacheMetrics.lookups  // its series are scraped (at 0) from start, before the first lookup
    }

    public static let migrations: [Migration] = [
        Migration(
            version: 1, name: "brand ticker cache",
            sql: """
                CREATE TABLE IF NOT EXISTS finance.brand_ticker_cache (
                    brand_key TEXT PRIMARY KEY,
                    payload JSONB NOT NULL,
                    fetched_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                    expires_at TIMESTAMPTZ NOT NULL
                );
                CREATE INDEX IF NOT EXISTS brand_ticker_cache_expiry_idx ON finance.brand_ticker_cache (expires_at);
                """)
    ]

    /// Creates the cache table (every service using the resolver runs this at start; replicas apply it once).
    public static func migrate(_ db: PostgresPool) async throws {
        try await db.migrate(schema: "finance", migrations: migrations)
    }

    private static func redisKey(_ key: String) -> String { "mapvest:brand:v1:" + key }

    /// The cached resolution of `key`: Redis first, then Postgres (copied back to Redis); counted in
    /// `brand_cache_lookups_total{result}`.
    public func get(_ key: String) async -> BrandResolution? {
        let lookups = BrandCacheMetrics.lookups
        if let redis, let bytes = try? await redis.get(Self.redisKey(key)),
            let hit = try? JSONDecoder().decode(BrandResolution.self, from: Data(bytes))
        {
            lookups.redis.increment()
            return hit
        }
        guard let db,
            let row = try? await db.query(
                "SELECT payload::text AS payload FROM finance.brand_ticker_cache WHERE brand_key = \(key) AND expires_at > now()"
            ).first,
            let text = row.string("payload"),
            let hit = try? JSONDecoder().decode(BrandResolution.self, from: Data(text.utf8))
        else {
            lookups.miss.increment()
            return nil
        }
        lookups.postgres.increment()
        if let redis, let bytes = try? JSONEncoder().encode(hit) {
            _ = try? await redis.set(Self.redisKey(key), Array(bytes), ttl: Self.ttl)
        }
        return hit
    }

    /// Reads many keys at once (Nearby joins whole result pages).
    public func get(_ keys: [String]) async -> [String: BrandResolution] {
        await withTaskGroup(of: (String, BrandResolution?).self) { group in
            for key in Set(keys) { group.addTask { (key, await get(key)) } }
            var out: [String: BrandResolution] = [:]
            for await (key, hit) in group { if let hit { out[key] = hit } }
            return out
        }
    }

    public func put(_ key: String, _ value: BrandResolution) async {
        guard let bytes = try? JSONEncoder().encode(value) else { return }
        if let redis { _ = try? await redis.set(Self.redisKey(key), Array(bytes), ttl: Self.ttl) }
        guard let db else { return }
        do {
            _ = try await db.execute(
                """
                INSERT INTO finance.brand_ticker_cache (brand_key, payload, fetched_at, expires_at)
                VALUES (\(key), \(PostgresJSON(String(decoding: bytes, as: UTF8.self))), now(), now() + interval '7 days')
                ON CONFLICT (brand_key) DO UPDATE SET payload = EXCLUDED.payload, fetched_at = EXCLUDED.fetched_at,
                    expires_at = EXCLUDED.expires_at
                """)
        } catch {
            logger.warning("brand cache write failed", [LogKeys.error: "\(error)"])
        }
    }

    /// A short cross-replica lock against stampedes (`SET NX PX`); true when this caller should compute.
    func claim(_ key: String, for ttl: Duration) async -> Bool {
        guard let redis else { return true }
        return (try? await redis.set("mapvest:lock:brand:" + key, [1], ttl: ttl, onlyIfAbsent: true)) ?? true
    }

    /// Releases a lock taken with `claim`.
    func release(_ key: String) async {
        guard let redis else { return }
        _ = try? await redis.delete("mapvest:lock:brand:" + key)
    }
}

/// The brand cache's hit rate, as the design names it: lookups by where they were answered (`redis`, `postgres`)
/// or `miss`; hit rate = (redis + postgres) / all. All three series exist from the first lookup on.
enum BrandCacheMetrics {
    static let lookups = (
        redis: counter("redis"), postgres: counter("postgres"), miss: counter("miss")
    )

    private static func counter(_ result: String) -> Counter {
        MetricsRegistry.shared.counter(
            "brand_cache_lookups_total", help: "Brand → ticker cache lookups by result (redis, postgres, miss).",
            labels: ["result": result])
    }
}
