import Foundation
import GatewayKit
import Messaging
import Postgres
import Redis
import Runtime
import ServiceKit

/// The gateway: the only HTTP surface for clients. Edge concerns (callers, sessions, sign-in, limits, quota) live
/// in `GatewayKit`; domain work is sent to the services as Kafka commands. This binary reads the configuration,
/// makes the real Redis, Postgres and Kafka clients and starts the parts `GatewayApp` builds over them.
let environment = Environment()
let openAPI: OpenAPIDocument
do {
    // Read here, on the main thread, before any task runs: a blocking file read at start.
    openAPI = try OpenAPIDocument.load(path: environment.get("OPENAPI_PATH"))
} catch {
    Logger(label: "gateway").error("cannot start", [LogKeys.error: "\(error)"])
    exit(1)
}

await ServiceMain.run(name: "Gateway", defaultAdminPort: 9100) { context in
    let configuration = GatewayConfiguration(context.environment)
    try configuration.validate()
    let logger = context.logger
    let redis = try await RedisClient.make(configuration.redis, logger: logger)
    let db = try await PostgresPool.make(configuration.postgres, logger: logger)
    try await db.migrate(schema: "gateway", migrations: GatewayApp.migrations)
    let client = try await RequestReplyClient.make(
        configuration: context.kafka, instanceId: configuration.instanceId, producer: context.producer,
        maxInFlight: configuration.maxInFlight, queueTarget: configuration.queueTarget,
        hedging: HedgeSettings.fromEnvironment(context.environment), logger: logger)
    return try GatewayApp.parts(
        context: context, configuration: configuration, openAPI: openAPI, redis: redis, db: db, client: client)
}
