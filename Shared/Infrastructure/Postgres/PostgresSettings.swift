import Runtime

/// Where a binary's Postgres is and how many connections it opens, read the same way by every binary:
/// `POSTGRES_URL` (default `postgres://postgres@127.0.0.1:5432/mapvest`) and `POSTGRES_POOL_SIZE` (the binary's
/// default, at least `minimumPoolSize`).
public struct PostgresSettings: Sendable, Equatable {
    public static let defaultURL = "postgres://postgres@127.0.0.1:5432/mapvest"
    public var url: String
    public var poolSize: Int

    public init(_ env: Environment, defaultPoolSize: Int = 8, minimumPoolSize: Int = 1) {
        url = env.get("POSTGRES_URL", default: Self.defaultURL)
        poolSize = max(minimumPoolSize, env.get("POSTGRES_POOL_SIZE", default: defaultPoolSize))
    }
}

extension PostgresPool {
    /// The pool a binary opens from its settings.
    public static func make(_ settings: PostgresSettings, logger: Logger) async throws -> PostgresPool {
        try await make(url: settings.url, size: settings.poolSize, logger: logger)
    }
}
