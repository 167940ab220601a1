import Messaging
import Redis
import ServiceKit

/// The Identify service: from a snapped photo (by claim check) and an optional hint to investable answers with sources.
await ServiceMain.run(name: "Identify", defaultAdminPort: 9101) { context in
    let env = context.environment
    let redis = try await RedisClient.make(
        url: env.get("REDIS_URL", default: "redis://127.0.0.1:6379"), size: env.get("REDIS_POOL_SIZE", default: 8),
        logger: context.logger)
    let commands = IdentifyCommands(
        identifier: PhotoIdentifier(photos: PhotoClaims(redis: redis), logger: context.logger), context: context)
    return [
        try CommandRunner(
            configuration: context.kafka, service: .identify, producer: context.producer,
            maxInFlight: env.get("COMMAND_MAX_IN_FLIGHT", default: 64), logger: context.logger, handler: commands.handle)
    ]
}
