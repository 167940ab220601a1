import Messaging
import Postgres
import Redis
import ServiceKit

/// The Identify service: from a snapped photo (by claim check) and an optional hint to investable answers with
/// sources; owner of the finds journal.
await ServiceMain.run(name: "Identify", defaultAdminPort: 9101) { context in
    let env = context.environment
    let logger = context.logger
    let redis = try await RedisClient.make(
        url: env.get("REDIS_URL", default: "redis://127.0.0.1:6379"), size: env.get("REDIS_POOL_SIZE", default: 8),
        logger: logger)
    let db = try await PostgresPool.make(
        url: env.get("POSTGRES_URL", default: "postgres://postgres@127.0.0.1:5432/mapvest"),
        size: env.get("POSTGRES_POOL_SIZE", default: 8), logger: logger)
    try await db.migrate(schema: "identify", migrations: FindsStore.migrations)
    let finds = FindsCommands(store: FindsStore(db: db), context: context)
    let commands = IdentifyCommands(
        identifier: PhotoIdentifier(photos: PhotoClaims(redis: redis), logger: logger), finds: finds,
        effects: SignedInEffects(finds: finds, context: context), context: context)
    return [
        try CommandRunner(
            configuration: context.kafka, service: .identify, producer: context.producer,
            maxInFlight: env.get("COMMAND_MAX_IN_FLIGHT", default: 64), logger: logger, handler: commands.handle)
    ]
}
