import BriefsCore
import Contracts
import Exa
import Foundation
import Headlines
import Jev
import MarketData
import Messaging
import OpenRouter
import Places
import Postgres
import Redis
import Resolver
import Runtime
import Scheduling
import ServiceKit

/// The Briefs service: owner of watchlists (schema `briefs`), Mapvest Daily and the watchlist headlines, and of
/// the scheduled jobs on its topic — the 7 am daily briefs, the 5-minute movers scan, the hourly movement scan and
/// the quarter-hourly find-evolution scan; it keeps a read model of Identify's finds from `find.recorded` events. With
/// `ENABLE_PUSH_SCHEDULER=1` it also publishes those commands itself, each slot once across replicas.
await ServiceMain.run(name: "Briefs", defaultAdminPort: 9104) { context in
    let env = context.environment
    let logger = context.logger
    let redis = try await RedisClient.make(RedisSettings(env), logger: logger)
    let db = try await PostgresPool.make(PostgresSettings(env), logger: logger)
    try await db.migrate(
        schema: "briefs",
        migrations: WatchlistStore.migrations + SavedLocalBriefs.migrations + MovementStore.migrations
            + FindsReadModel.migrations + UncaughtNearby.migrations + FindEvolution.migrations)
    try await db.migrate(schema: "briefs", migrations: PriceAlertStore.migrations + TickerMemos.migrations)

    let market = MarketDataClient.fromEnvironment(env, http: context.http, logger: logger)
    let openRouter = OpenRouterClient.fromEnvironment(env, http: context.http, logger: logger)
    let exa = ExaClient.fromEnvironment(env, http: context.http, logger: logger)
    let jev = JevClient.fromEnvironment(env, http: context.http, logger: logger)
    if !openRouter.isConfigured { logger.info("OPENROUTER_API_KEY is not set: daily briefs are the outage brief") }
    if env.get("JEV_API_KEY") == nil { logger.info("JEV_API_KEY is not set: headlines unscored, no brief pre-filter") }
    if !exa.isConfigured {
        logger.info("EXA_API_KEY is not set: news/read answers unavailable, add checks quotes only")
    }

    let store = WatchlistStore(db: db)
    let owner = "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
    let claims = SlotClaims(db: db, table: "briefs.job_slots", owner: owner)
    let briefs = DailyBriefs(
        writer: DailyBriefWriter(market: market, openRouter: openRouter, jev: jev), store: store,
        claims: claims, redis: redis, context: context)
    let scheduled = ScheduledRuns(store: store, briefs: briefs, market: market, claims: claims, context: context)
    let nearby = NearbyPlaces(
        places: PlacesTileCache(
            cascade: PlacesCascade(configuration: .fromEnvironment(env), http: context.http), redis: redis,
            logger: logger))
    let geocoder = ReverseGeocoder(
        baseURL: env.get("NOMINATIM_BASE_URL", default: ReverseGeocoder.defaultBaseURL), redis: redis,
        http: context.http, logger: logger)
    let local = LocalBriefs(
        writer: LocalBriefWriter(places: nearby, exa: exa, openRouter: openRouter), geocoder: geocoder, redis: redis,
        logger: logger)
    let finds = FindsReadModel(db: db)
    let commands = BriefsCommands(
        watchlists: WatchlistCommands(
            store: store,
            tickers: TickerCheck(
                market: market, comparables: ComparableResolver(exa: exa, openRouter: openRouter, logger: logger)),
            context: context),
        briefs: briefs,
        headlines: WatchlistHeadlines(
            store: store, market: market, materiality: HeadlineMateriality(jev: jev, redis: redis, logger: logger),
            logger: logger),
        news: NewsReader(exa: exa),
        scheduled: scheduled,
        alerts: PriceAlertCommands(
            store: PriceAlertStore(db: db), market: market, claims: claims, scheduled: scheduled, context: context),
        backtest: BacktestCommands(store: store, market: market),
        memos: TickerMemos(
            db: db, market: market, openRouter: openRouter, sec: SECFilings(env: env, http: context.http),
            claims: claims, context: context),
        local: local, saved: SavedLocalBriefs(db: db),
        movement: Movement(
            store: MovementStore(db: db), local: local,
            uncaught: UncaughtNearby(
                db: db, finds: finds, watchlists: store, nearby: nearby, market: market, context: context),
            context: context),
        evolution: FindEvolution(
            db: db, finds: finds, market: market, geocoder: geocoder, claims: claims, scheduled: scheduled,
            context: context))

    var parts: [any Service] = [
        try CommandRunner(
            configuration: context.kafka, service: .briefs, producer: context.producer,
            maxInFlight: env.get("COMMAND_MAX_IN_FLIGHT", default: 64), logger: logger, handler: commands.handle),
        // Briefs' read model of Identify's finds, in its own consumer group.
        try FindsRecordedConsumer(
            configuration: context.kafka, groupId: FindsReadModel.groupId, metricsPrefix: "briefs_finds_read_model",
            logger: logger, apply: finds.record),
    ]
    if env.get("ENABLE_PUSH_SCHEDULER") == "1" {
        let zoneName = env.get("SCHEDULER_TIME_ZONE", default: "UTC")
        guard let zone = TimeZone(identifier: zoneName) else {
            throw ConfigurationError(
                key: "SCHEDULER_TIME_ZONE", reason: "is set to \"\(zoneName)\", which is not a known time zone")
        }
        parts.append(
            try CommandScheduler(
                jobs: BriefsSchedule.commands(
                    BriefsJobs.jobs(dailyAt: env.get("DAILY_BRIEF_TIME", default: "07:00")) + BriefsJobs.priceAlertJobs),
                claims: claims,
                publisher: context.publisher, timeZone: zone, settings: try SchedulerSettings.fromEnvironment(env),
                logger: logger))
        logger.info("push scheduler on", [LogKeys.schedulerTimeZone: .string(zoneName)])
    }
    return parts
}
