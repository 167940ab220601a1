import Exa
import Foundation
import Jev
import MarketData
import Messaging
import OCR
import OpenRouter
import Postgres
import Redis
import Resolver
import ServiceKit

/// The Identify service: from a snapped photo (by claim check) and an optional hint to investable answers with
/// sources; owner of the finds journal.
await ServiceMain.run(name: "Identify", defaultAdminPort: 9101) { context in
    let env = context.environment
    let logger = context.logger
    let redis = try await context.makeRedis()
    let db = try await context.makePostgres()
    try await db.migrate(schema: "identify", migrations: FindsStore.migrations + ProgressStore.migrations)
    try await BrandTickerCache.migrate(db)

    let openRouter = OpenRouterClient.fromEnvironment(env, logger: logger)
    let exa = ExaClient.fromEnvironment(env, logger: logger)
    let market = MarketDataClient.fromEnvironment(env, logger: logger)
    let ocrWorkers = env.get("OCR_WORKERS", default: 2)
    let ocr = ocrWorkers > 0 ? TextRecognizer.make(workers: ocrWorkers, logger: logger) : nil
    if !openRouter.isConfigured {
        logger.info("OPENROUTER_API_KEY is not set: identify reads photos with offline OCR")
    }
    let resolver = InvestableResolver(
        tickers: TickerResolver(
            cache: BrandTickerCache(redis: redis, db: db, logger: logger), market: market, exa: exa,
            openRouter: openRouter, logger: logger),
        comparables: ComparableResolver(exa: exa, openRouter: openRouter, logger: logger), etfs: ETFExposureResolver(exa: exa),
        market: market)
    let identifier = PhotoIdentifier(
        vision: VisionIdentifier(client: openRouter, firstModelTimeout: env.milliseconds("VISION_MODEL_TIMEOUT_MS", default: .seconds(12))),
        ocr: ocr, resolver: resolver,
        verdicts: VerdictAttacher(jev: JevClient.fromEnvironment(env, logger: logger), gate: JevGate()), logger: logger)
    let finds = FindsCommands(store: FindsStore(db: db), context: context)
    let commands = IdentifyCommands(
        identifier: identifier, finds: finds, effects: IdentifyEffects(finds: finds, context: context),
        photos: PhotoClaims(redis: redis),
        progress: ProgressCommands(
            progress: ProgressStore(db: db), finds: FindsStore(db: db), universe: UniverseSummarizer(market: market)))
    return [
        UsageReporter.fromEnvironment(env, redis: redis, logger: logger),
        try CommandRunner(
            configuration: context.kafka, service: .identify, producer: context.producer,
            maxInFlight: env.get("COMMAND_MAX_IN_FLIGHT", default: 64), logger: logger, handler: commands.handle)
    ]
}
