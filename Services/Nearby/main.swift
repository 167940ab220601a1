import Contracts
import Exa
import Foundation
import MarketData
import Messaging
import NearbyAdapters
import NearbyCore
import OpenRouter
import Places
import Postgres
import Redis
import Resolver
import Runtime
import ServiceKit

/// The Nearby service: `GET /v1/nearby` (places cascade, tile cache, brand → ticker join, per-user state) and the
/// captures read model it keeps from `mapvest.find.recorded` events.
await ServiceMain.run(name: "Nearby", defaultAdminPort: 9102) { context in
    let env = context.environment
    let logger = context.logger
    let redis = try await RedisClient.make(RedisSettings(env), logger: logger)
    let db = try await PostgresPool.make(PostgresSettings(env), logger: logger)
    try await CapturesStore.migrate(db)
    try await BrandTickerCache.migrate(db)

    let places = PlacesConfiguration.fromEnvironment(env)
    if places.googleAPIKey == nil {
        logger.info("GOOGLE_MAPS_API_KEY is not set: nearby uses OpenStreetMap (Overpass, then Photon)")
    }
    let brandCache = BrandTickerCache(redis: redis, db: db, logger: logger)
    let resolver = TickerResolver(
        cache: brandCache, market: MarketDataClient.fromEnvironment(env, http: context.http, logger: logger),
        exa: ExaClient.fromEnvironment(env, http: context.http, logger: logger),
        openRouter: OpenRouterClient.fromEnvironment(env, http: context.http, logger: logger),
        logger: logger)
    let captures = CapturesStore(db: db)
    let tiles = PlacesTileCache(
        cascade: PlacesCascade(configuration: places, http: context.http), redis: redis, logger: logger)
    let answerer = NearbyAnswerer(
        tiles: tiles, join: BrandJoin(resolver: resolver, cache: brandCache), captures: captures, logger: logger)
    let proxy = PlacesProxyAnswerer(tiles: tiles)

    let handler: @Sendable (IncomingCommand) async throws -> Reply = { command in
        if command.name == PlacesProxyCommand.name {
            return try await proxy.reply(to: command, logger: logger)
        }
        guard command.name == NearbyCommand.name else { throw CommandDecodingError("unknown command \(command.name)") }
        let request: NearbyCommand
        do {
            request = try JSONDecoder().decode(NearbyCommand.self, from: Data(command.body))
        } catch {
            throw CommandDecodingError("\(command.name): \(error)")
        }
        let answer = await answerer.answer(request, deadline: command.deadline)
        let reply: Reply
        switch answer.result {
        case .success(let response):
            reply = .json(
                200, response,
                headers: [("Cache-Control", NearbyRules.cacheControl(signedIn: request.userId != nil))])
        case .failure(let failure):
            logger.warning("places cascade exhausted", [LogKeys.nearbyTile: .string(answer.event.tile)])
            reply = .error(502, failure.message)
        }
        // After the reply (never delaying it), and before the offset is committed.
        let event = answer.event
        return reply.then {
            try await context.emit(
                type: NearbyServedEvent.type, schemaVersion: NearbyServedEvent.schemaVersion,
                key: request.userId ?? event.tile, data: event)
        }
    }
    return [
        UsageReporter.fromEnvironment(env, redis: redis, logger: logger),
        try FindsRecordedConsumer(configuration: context.kafka, store: captures, logger: logger),
        try CommandRunner(
            configuration: context.kafka, service: .nearby, producer: context.producer,
            maxInFlight: env.get("COMMAND_MAX_IN_FLIGHT", default: 64), logger: logger, handler: handler),
    ]
}
