import Contracts
import Exa
import Foundation
import HTTPClient
import Jev
import Kafka
import MarketData
import Messaging
import OCR
import OpenRouter
import Postgres
import Redis
import Resolver
import Runtime
import Scheduling
import ServiceKit

/// The Identify service: from a snapped photo (by claim check) and an optional hint to investable answers with
/// sources; owner of the finds journal.
await ServiceMain.run(name: "Identify", defaultAdminPort: 9101) { context in
    let env = context.environment
    let logger = context.logger
    let redis = try await RedisClient.make(RedisSettings(env), logger: logger)
    let db = try await PostgresPool.make(PostgresSettings(env), logger: logger)
    try await db.migrate(
        schema: "identify",
        migrations: FindsStore.migrations + ProgressStore.migrations + LeaderboardStore.migrations
            + TerritoryStore.migrations + RivalryStore.migrations + CompanyPhotoStore.migrations + CoopPool.migrations
            + [SlotClaims.migration(version: 24, table: "identify.job_slots")]
            + [
                Outbox.migration(version: 30, schema: "identify"),
                Outbox.traceMigration(version: 49, schema: "identify"),
            ])
    try await BrandTickerCache.migrate(db)

    // Replies to Identify's own questions (the caller's watchlist, asked of Briefs).
    let replies = try await RequestReplyClient.make(
        configuration: context.kafka,
        instanceId: env.get(
            "IDENTIFY_INSTANCE_ID",
            default: "identify-\(ProcessInfo.processInfo.hostName)-\(env.get("ADMIN_PORT", default: 9101))"),
        producer: context.producer, maxInFlight: 1024, logger: logger)
    let watchlist = WatchlistLookup(client: replies)
    Task { await watchlist.warmUp() }
    // Upstream calls are I/O-bound waits: one pool with room for hundreds of them at once (`UPSTREAM_MAX_CONNECTIONS`
    // per host), not the shared client's 32.
    let http = try HTTPClient.make(
        logger: logger, maxConnectionsPerHost: env.get("UPSTREAM_MAX_CONNECTIONS", default: 1024))
    let openRouter = OpenRouterClient.fromEnvironment(env, http: http, logger: logger)
    let exa = ExaClient.fromEnvironment(env, http: http, logger: logger)
    let market = MarketDataClient.fromEnvironment(env, http: http, logger: logger)
    // OCR is CPU-bound: one worker per core by default.
    let ocrWorkers = env.get("OCR_WORKERS", default: ProcessInfo.processInfo.activeProcessorCount)
    let ocr = ocrWorkers > 0 ? TextRecognizer.make(workers: ocrWorkers, logger: logger) : nil
    if !openRouter.isConfigured {
        logger.info("OPENROUTER_API_KEY is not set: identify reads photos with offline OCR")
    }
    let resolver = InvestableResolver(
        tickers: TickerResolver(
            cache: BrandTickerCache(redis: redis, db: db, logger: logger), market: market, exa: exa,
            openRouter: openRouter, logger: logger),
        comparables: ComparableResolver(exa: exa, openRouter: openRouter, logger: logger),
        etfs: ETFExposureResolver(exa: exa),
        market: market)
    let identifier = PhotoIdentifier(
        vision: VisionIdentifier(
            client: openRouter, firstModelTimeout: env.milliseconds("VISION_MODEL_TIMEOUT_MS", default: .seconds(12))),
        ocr: ocr, resolver: resolver,
        verdicts: VerdictAttacher(jev: JevClient.fromEnvironment(env, http: http, logger: logger), gate: JevGate()),
        watchlist: watchlist, logger: logger)
    // find.recorded is staged with its find and relayed after COMMIT; the relay publishes what that left.
    let outbox = Outbox(schema: "identify", db: db, logger: logger) { entry, deadline in
        try await context.publisher.deliver(topic: entry.topic, key: entry.key, value: entry.value, until: deadline)
    }
    let finds = FindsCommands(store: FindsStore(db: db), context: context, outbox: outbox)
    let play = PlayCommands(
        store: QuestStore(db: db), leaderboard: LeaderboardStore(db: db), territory: TerritoryStore(db: db),
        clock: { Date() })
    let commands = IdentifyCommands(
        identifier: identifier, finds: finds,
        effects: IdentifyEffects(
            finds: finds, context: context,
            circuit: DatabaseCircuit(threshold: env.get("IDENTIFY_DB_CIRCUIT_THRESHOLD", default: 3), logger: logger)),
        photos: PhotoClaims(redis: redis),
        progress: ProgressCommands(
            progress: ProgressStore(db: db), finds: FindsStore(db: db), universe: UniverseSummarizer(market: market)),
        play: play,
        rivalries: RivalryCommands(store: RivalryStore(db: db), comparables: resolver.comparables, clock: { Date() }),
        closer: RivalryCloser(
            store: RivalryCloseStore(db: db, outbox: outbox), market: market, outbox: outbox, logger: logger,
            pace: try rivalryClosePace(env)),
        // Company photos: re-encoded on the encoder's own queue, stored in Postgres
        // (docs/decisions/0053-company-photos.md).
        companyPhotos: PhotoCommands(
            store: CompanyPhotoStore(db: db), claims: PhotoClaims(redis: redis), encoder: ImageReencoder(),
            clock: { Date() }))
    var parts: [any Service] = [
        replies,
        OutboxRelay.fromEnvironment(env, outbox: outbox),
        try CommandRunner(
            configuration: context.kafka, topic: Topics.identifyEffects, groupId: IdentifyEffects.groupId,
            urgency: .background, producer: context.producer, maxInFlight: 16, logger: logger,
            handler: commands.handle),
        UsageReporter.fromEnvironment(env, redis: redis, logger: logger),
        // Quests are paid from Identify's own find stream, in a group of their own (docs/decisions/0044-play-in-identify.md).
        try FindsRecordedConsumer(
            configuration: context.kafka, groupId: "mapvest.identify.quests", metricsPrefix: "identify_quests",
            logger: logger, apply: play.award),
        try CommandRunner(
            configuration: context.kafka, service: .identify, producer: context.producer,
            // Mostly I/O-bound waits (vision, Exa, Jev, Redis, Postgres): hundreds per replica. The CPU-bound part
            // (OCR) has its own bound, the OCR workers and their queue.
            maxInFlight: env.get("COMMAND_MAX_IN_FLIGHT", default: 1024), logger: logger, handler: commands.handle),
    ]
    // The weekly rivalry close: each Saturday 12:00 UTC slot once across replicas
    // (docs/decisions/0047-play-territory-and-rivalries.md).
    if env.get("ENABLE_PUSH_SCHEDULER") == "1" {
        let owner = "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
        parts.append(
            try CommandScheduler(
                jobs: [RivalryCloseSchedule.job], claims: SlotClaims(db: db, table: "identify.job_slots", owner: owner),
                publisher: context.publisher, timeZone: RivalryCloseSchedule.timeZone,
                settings: try SchedulerSettings.fromEnvironment(env), logger: logger))
    }
    return parts
}

/// `RIVALRY_CLOSE_PACE_MS`: a pause after each closed round, so a test can kill a replica mid-close; dev and tests
/// only (set outside `MAPVEST_ENV=dev`, it stops start-up).
func rivalryClosePace(_ env: Environment) throws -> Duration {
    guard let raw = env.get("RIVALRY_CLOSE_PACE_MS") else { return .zero }
    guard env.isDevelopment else {
        throw ConfigurationError(
            key: "RIVALRY_CLOSE_PACE_MS", reason: "is a test setting, allowed only with MAPVEST_ENV=dev")
    }
    guard let ms = Int64(raw), (0...60_000).contains(ms) else {
        throw ConfigurationError(
            key: "RIVALRY_CLOSE_PACE_MS", reason: "is set to \"\(raw)\", which is not a whole number in 0…60000")
    }
    return .milliseconds(ms)
}
