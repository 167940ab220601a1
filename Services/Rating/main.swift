import Contracts
import Foundation
import Headlines
import Jev
import MarketData
import Messaging
import RatingAdapters
import Redis
import Runtime
import SearchIntent
import ServiceKit
import TickerPage

/// The Rating service: the market-data-backed answers — `GET /v1/rating/:ticker`, `GET /v1/news` with headline
/// materiality, `POST /v1/search/intent` (whose live-quote probe goes through the same market-data boundary), and the
/// ticker page: quote, quote history, charts, the analysis snapshot and the Prism/Situate summaries.
await ServiceMain.run(name: "Rating", defaultAdminPort: 9103) { context in
    let env = context.environment
    let logger = context.logger
    let redis = try await RedisClient.make(RedisSettings(env), logger: logger)
    // One Massive pace for every Massive request of every replica: quotes and history as well as the surface.
    let surfaceSettings = MarketSurfaceConfiguration.fromEnvironment(env)
    let pace: MarketDataPace? =
        surfaceSettings.requestsPerMinute > 0
        ? MassivePace(perMinute: surfaceSettings.requestsPerMinute, redis: redis, logger: logger) : nil
    let market = MarketDataClient.fromEnvironment(env, http: context.http, pace: pace, logger: logger)
    let jev = JevClient.fromEnvironment(env, http: context.http, logger: logger)
    if env.get("JEV_API_KEY") == nil {
        logger.info(
            "JEV_API_KEY is not set: ratings are insufficient_signal, headlines unscored, intents deterministic")
    }
    let underlying = UnderlyingClient.fromEnvironment(env, http: context.http, logger: logger)
    let pages = MarketDataPages(
        configuration: market.configuration, settings: surfaceSettings, http: context.http, pace: pace, logger: logger)
    let tickerPage = TickerPage.make(
        env, market: market, pages: pages, underlying: underlying, redis: redis, logger: logger)
    let materiality = HeadlineMateriality(jev: jev, redis: redis, logger: logger)
    let news = NewsPage(market: market, materiality: materiality)
    let ratings = RatingService(
        engine: RatingEngine(
            collector: EvidenceCollector(
                market: market, underlying: underlying,
                memos: ResearchMemos(redis: redis), materiality: materiality),
            jev: jev),
        redis: redis, logger: logger)
    let intents = SearchIntentResolver(
        quoteProbe: { symbol in await market.quote(symbol) != nil }, jev: jev, redis: redis, logger: logger)
    let publishComputed: @Sendable (RatingResponse, Duration) async throws -> Void = { response, elapsed in
        let event = RatingComputedEvent(
            ticker: response.ticker, status: response.status, action: response.rating?.action,
            strength: response.rating?.strength, confidence: response.confidence, inputsUsed: response.inputsUsed,
            latencyMs: Int(elapsed.inMilliseconds))
        try await context.emit(
            type: RatingComputedEvent.type, schemaVersion: RatingComputedEvent.schemaVersion, key: response.ticker,
            data: event)
    }

    return [
        UsageReporter.fromEnvironment(env, redis: redis, logger: logger),
        try CommandRunner(
            configuration: context.kafka, service: .rating, producer: context.producer,
            maxInFlight: env.get("COMMAND_MAX_IN_FLIGHT", default: 64), logger: logger,
            handler: RatingCommands(
                ratings: ratings, news: news, intents: intents, ticker: tickerPage, publishComputed: publishComputed
            ).handle),
    ]
}
