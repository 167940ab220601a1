import Foundation
import HTTPServer
import Kafka
import Messaging
import Redis
import Runtime
import ServiceKit

/// The gateway: the only HTTP surface for clients. It turns requests into Kafka commands and waits for replies.
await ServiceMain.run(name: "Gateway", defaultAdminPort: 9100) { context in
    let configuration = GatewayConfiguration(context.environment)
    let redis = try await RedisClient.make(
        url: configuration.redisURL, size: configuration.redisPoolSize, logger: context.logger)
    let client = try await RequestReplyClient.make(
        configuration: context.kafka, instanceId: configuration.instanceId, producer: context.producer,
        maxInFlight: configuration.maxInFlight, logger: context.logger)
    let caller = ServiceCaller(client: client)
    let identify = IdentifyRoute(
        photos: PhotoStore(redis: redis, ttl: configuration.photoTTL), caller: caller, logger: context.logger)
    let router = Router(HealthRoutes.routes(configuration: configuration, startedAt: Date()) + [identify.route])
    let server = HTTPServer(
        configuration: HTTPServerConfiguration(
            host: configuration.host, port: configuration.port, threads: configuration.httpThreads, name: "gateway"),
        handler: GatewayHandler(
            router: router, admin: AdminEndpoints(readiness: context.readiness), logger: context.logger),
        logger: context.logger)
    context.logger.info("gateway listening", ["http.port": .int(configuration.port), "gateway.instance": .string(configuration.instanceId)])
    // Stopped in reverse: the HTTP server first (no new requests), then the reply client.
    return [client, server]
}
