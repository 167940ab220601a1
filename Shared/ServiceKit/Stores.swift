import Postgres
import Redis

extension ServiceContext {
    /// Redis from `REDIS_URL` (default `redis://127.0.0.1:6379`) with `REDIS_POOL_SIZE` connections.
    public func makeRedis(defaultPoolSize: Int = 8) async throws -> RedisClient {
        try await RedisClient.make(
            url: environment.get("REDIS_URL", default: "redis://127.0.0.1:6379"),
            size: max(1, environment.get("REDIS_POOL_SIZE", default: defaultPoolSize)), logger: logger)
    }

    /// Postgres from `POSTGRES_URL` with `POSTGRES_POOL_SIZE` connections.
    public func makePostgres(defaultPoolSize: Int = 8) async throws -> PostgresPool {
        try await PostgresPool.make(
            url: environment.get("POSTGRES_URL", default: "postgres://postgres@127.0.0.1:5432/mapvest"),
            size: max(1, environment.get("POSTGRES_POOL_SIZE", default: defaultPoolSize)), logger: logger)
    }
}
