import ExpoPush
import HTTPClient
import Postgres
import PushCore
import Redis
import Runtime

/// Everything one dispatcher replica needs, built from its configuration: two Postgres pools (route commands and
/// maintenance; reserved handoff connections), Redis for the shared pace, the bootstrapped schema, the store,
/// the dispatcher, the command handler and maintenance. The binary wires it to Kafka; tests and the benchmark build
/// several in one process.
public struct PushRuntime: Sendable {
    public let configuration: PushConfiguration
    public let schema: PushSchema
    public let db: PostgresPool
    let handoffPool: PostgresPool
    public let redis: RedisClient
    public let expo: ExpoPushClient
    public let store: PushStore
    public let dispatcher: PushDispatcher
    public let commands: PushCommands
    public let maintenance: PushMaintenance

    /// Opens the pools and runs the schema bootstrap (idempotent; replicas serialize on its advisory lock).
    public static func make(
        configuration: PushConfiguration, logger: Logger, http: HTTPClient,
        onLockHeld: (@Sendable (Duration) -> Void)? = nil, onHeartbeat: PushCommands.Heartbeat? = nil
    ) async throws -> PushRuntime {
        let schema = try PushSchema(name: configuration.schema)
        Metrics.registerAlertingSeries()
        let db = try await PostgresPool.make(configuration.postgres, logger: logger)
        // One reserved connection per handoff permit: a handoff never waits for a connection another one holds.
        let handoffPool = try await PostgresPool.make(
            url: configuration.postgres.url, size: configuration.maxConcurrentHandoffs, logger: logger,
            acquireTimeout: .seconds(30))
        let redis = try await RedisClient.make(configuration.redis, logger: logger)
        try await schema.bootstrap(db, logger: logger)
        let expo = ExpoPushClient(configuration: configuration.expo, http: http, logger: logger)
        let store = PushStore(db: db, schema: schema)
        let dispatcher = PushDispatcher(
            settings: PushDispatcher.Settings(configuration), schema: schema, pool: handoffPool, expo: expo,
            pace: ExpoPace(
                ratePerSecond: configuration.pacePerSecond, redis: redis, key: configuration.paceKey, logger: logger),
            gate: HandoffGate(permits: configuration.maxConcurrentHandoffs), logger: logger, onLockHeld: onLockHeld)
        Metrics.dispatchEnabled.set(configuration.dispatchEnabled ? 1 : 0)
        if let reason = configuration.gateReason {
            logger.error(
                "expo dispatch DISABLED by the production gate: nothing will be sent and every notification counts as failed",
                [LogKeys.reason: .string(reason)])
        } else if !configuration.pollsReceipts {
            logger.info("EXPO_ACCESS_TOKEN is not set: Expo receipts are not polled (dev)")
        }
        return PushRuntime(
            configuration: configuration, schema: schema, db: db, handoffPool: handoffPool, redis: redis, expo: expo,
            store: store, dispatcher: dispatcher,
            commands: PushCommands(
                store: store, logger: logger, onHeartbeat: configuration.schedulerEnabled ? onHeartbeat : nil),
            maintenance: PushMaintenance(
                db: db, schema: schema, expo: expo, interval: configuration.maintenanceInterval,
                pollReceipts: configuration.pollsReceipts, logger: logger))
    }

    /// Closes the pools and the Redis client.
    public func close() async {
        await handoffPool.close()
        await db.close()
        await redis.close()
    }
}
