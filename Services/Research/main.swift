import Contracts
import Exa
import Foundation
import MarketData
import Messaging
import OpenRouter
import Postgres
import Redis
import Runtime
import ServiceKit

/// The Research service: durable research conversations (Postgres schema `research`), answered by Derivation, else
/// OpenRouter's research chain, else a plain sentence. Its own service so research traffic (30 s turns) never
/// shares in-flight slots with the briefs schedulers.
await ServiceMain.run(name: "Research", defaultAdminPort: 9106) { context in
    let env = context.environment
    let logger = context.logger
    let db = try await PostgresPool.make(PostgresSettings(env), logger: logger)
    // The usage reports (the admin cost of its OpenRouter calls) and the graph's quiet hour after finding nothing.
    let redis = try await RedisClient.make(RedisSettings(env, defaultPoolSize: 2), logger: logger)
    try await db.migrate(
        schema: "research", migrations: ConversationStore.migrations + PacketStore.migrations + GraphStore.migrations)
    let derivation = DerivationClient.fromEnvironment(env, http: context.http)
    let openRouter = OpenRouterClient.fromEnvironment(env, http: context.http, logger: logger)
    if derivation == nil {
        logger.info("DERIVATION_URL or its service token is not set: research answers via OpenRouter")
    }
    if !openRouter.isConfigured {
        logger.info("OPENROUTER_API_KEY is not set: without Derivation, research is unavailable")
    }
    let memos = MemoRenderer()
    let packets = PacketStore(db: db)
    let graphs = GraphStore(db: db)
    let memoCache = MemoCacheStore(redis: redis, logger: logger)
    let market = MarketDataClient.fromEnvironment(env, http: context.http, logger: logger)
    if market.configuration.massiveAPIKey == nil {
        logger.info("MASSIVE_API_KEY is not set: a demand pulse with buyers to look up answers 503")
    }
    let pulse = PulseCommands(graphs: graphs, market: market, cache: memoCache, logger: logger)
    let environment = EnvironmentCommands(
        fred: FredClient.fromEnvironment(env, http: context.http, logger: logger),
        exa: ExaClient.fromEnvironment(env, http: context.http, logger: logger), openRouter: openRouter,
        cache: memoCache, logger: logger)
    let commands = ResearchCommands(
        store: ConversationStore(db: db),
        answerer: ResearchAnswerer(derivation: derivation, openRouter: openRouter, logger: logger),
        memos: memos, packets: PacketCommands(store: packets, memos: memos),
        graph: GraphCommands(
            store: graphs,
            extractor: GraphExtractor(
                underlyingURL: UnderlyingPackets.fromEnvironment(env, http: context.http).baseURL, http: context.http,
                exa: ExaClient.fromEnvironment(env, http: context.http, logger: logger), openRouter: openRouter),
            redis: redis, logger: logger),
        cockpit: CockpitRanker(
            baseURL: UnderlyingPackets.fromEnvironment(env, http: context.http).baseURL, http: context.http),
        pulse: pulse, environment: environment,
        synthesis: SynthesisCommands(
            graphs: graphs, pulse: pulse, environment: environment, market: market, openRouter: openRouter,
            cache: memoCache, logger: logger),
        context: context)
    return [
        UsageReporter.fromEnvironment(env, redis: redis, logger: logger),
        FilingWatch(
            store: GraphStore(db: db), edgar: EdgarTenK.fromEnvironment(env, http: context.http), redis: redis,
            env: env,
            logger: logger),
        PacketWorker(
            store: packets, engine: UnderlyingPackets.fromEnvironment(env, http: context.http),
            publisher: context.publisher, env: env, logger: logger),
        try CommandRunner(
            configuration: context.kafka, service: .research, producer: context.producer,
            maxInFlight: env.get("COMMAND_MAX_IN_FLIGHT", default: 64), logger: logger, handler: commands.handle),
    ]
}
