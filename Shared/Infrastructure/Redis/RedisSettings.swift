import Runtime

/// Where a binary's Redis is and how many connections it opens, read the same way by every binary:
/// `REDIS_URL` (default `redis://127.0.0.1:6379`) and `REDIS_POOL_SIZE` (the binary's default, at least 1).
public struct RedisSettings: Sendable, Equatable {
    public static let defaultURL = "redis://127.0.0.1:6379"
    public var url: String
    public var poolSize: Int

    public init(_ env: Environment, defaultPoolSize: Int = 8) {
        url = env.get("REDIS_URL", default: Self.defaultURL)
        poolSize = max(1, env.get("REDIS_POOL_SIZE", default: defaultPoolSize))
    }
}

extension RedisClient {
    /// The client a binary opens from its settings.
    public static func make(_ settings: RedisSettings, logger: Logger) async throws -> RedisClient {
        try await make(url: settings.url, size: settings.poolSize, logger: logger)
    }
}
