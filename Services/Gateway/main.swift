import Crypto
import Foundation
import HTTPServer
import Kafka
import MCP
import Messaging
import Postgres
import Redis
import Runtime
import ServiceKit

/// The gateway: the only HTTP surface for clients. Edge concerns (callers, sessions, sign-in, limits, quota) live
/// here; domain work is sent to the services as Kafka commands.
await ServiceMain.run(name: "Gateway", defaultAdminPort: 9100) { context in
    let configuration = GatewayConfiguration(context.environment)
    try configuration.validate()
    let logger = context.logger
    let redis = try await RedisClient.make(configuration.redis, logger: logger)
    let db = try await PostgresPool.make(configuration.postgres, logger: logger)
    try await db.migrate(schema: "gateway", migrations: UserStore.migrations + AdminLog.migrations)
    let adminLog = AdminLog(db: db)
    let client = try await RequestReplyClient.make(
        configuration: context.kafka, instanceId: configuration.instanceId, producer: context.producer,
        maxInFlight: configuration.maxInFlight, queueTarget: configuration.queueTarget, logger: logger)

    let tokens = SessionTokens(
        sessions: HS256JWT(key: configuration.sessionKey), maps: HS256JWT(key: configuration.mapsKey))
    let users = UserStore(
        db: db, adminEmails: configuration.adminEmails, freeForeverDomains: configuration.freeForeverDomains)
    let caller = ServiceCaller(client: client)
    let lookups = LookupDeadline(budget: configuration.budgets.lookup)
    let auth = AuthRoutes(
        tokens: tokens, users: users, codes: SignInCodes(redis: redis, secret: configuration.sessionKey),
        lookups: lookups,
        mail: configuration.mailSender(logger: logger), returnCodes: configuration.returnCodes,
        publicURL: configuration.publicURL,
        logger: logger)
    let identify = IdentifyRoute(
        photos: PhotoStore(redis: redis, ttl: configuration.photoTTL), caller: caller,
        guards: IdentifyGuards(
            redis: redis, users: users, lookups: lookups, limitsEnabled: configuration.limitsEnabled,
            adminLog: adminLog, logger: logger), budget: configuration.budgets.identify,
        logger: logger)
    let budgets = configuration.budgets
    let mcpSettings = MapvestMCP(context.environment)
    let mcp = try mcpSettings.server(
        tools: MapvestTools(caller: caller, ratingBudget: budgets.rating, ratingCache: RatingCachePeek(redis: redis)),
        transport: HTTPPeerTransport(client: context.http),
        limiter: configuration.limitsEnabled
            ? RedisCallLimiter(redis: redis, logger: logger) : InMemoryCallLimiter(perMinute: .max))
    let router = Router(
        HealthRoutes.routes(configuration: configuration, startedAt: Date()) + auth.routes + [identify.route]
            + FindsRoutes(caller: caller, budget: budgets.standard).routes
            + ProgressRoutes(caller: caller, budget: budgets.standard).routes
            + AgentRoutes(
                caller: caller, chatBudget: budgets.agent, budget: budgets.standard,
                heartbeat: context.environment.milliseconds("AGENT_STREAM_HEARTBEAT_MS", default: .seconds(15))
            ).routes
            + AdminRoutes(
                users: users, log: adminLog, usage: UsageTotals(redis: redis),
                reports: AdminReports(exaUSDPerRequest: AdminReports.exaPrice(context.environment)), logger: logger
            ).routes
            + PushRoutes(caller: caller, tokens: tokens, budget: budgets.standard).routes
            + [ResolveComparableRoute(caller: caller, budget: budgets.standard).route]
            + [NearbyRoute(caller: caller, budget: budgets.nearby).route]
            + [PlacesProxyRoute(caller: caller, tokens: tokens, budget: budgets.nearby).route]
            + ResearchRoutes(caller: caller, ratingBudget: budgets.rating, budget: budgets.standard).routes
            + TickerRoutes(caller: caller, chartBudget: budgets.rating, budget: budgets.standard).routes
            + MCPRoutes(
                server: mcp, address: MCPAddress(rule: ClientAddress(trustedHops: mcpSettings.trustedProxyHops))
            ).routes
            + AlertRoutes(caller: caller, budget: budgets.standard).routes
            + [BacktestRoute(caller: caller, budget: budgets.rating).route]
            + MemoRoutes(caller: caller, memoBudget: budgets.brief, budget: budgets.standard).routes
            + WatchlistRoutes(
                caller: caller, budget: budgets.standard, briefBudget: budgets.brief, addBudget: budgets.watchlistAdd
            ).routes
            + LocalBriefRoutes(caller: caller, budget: budgets.standard, briefBudget: budgets.brief).routes)
    OpenAPIDocument.report(router, logger: logger)
    let edge = Edge(
        tokens: tokens, users: users, lookups: lookups,
        limiter: configuration.limitsEnabled ? GlobalRateLimiter(redis: redis, logger: logger) : nil,
        address: ClientAddress(trustedHops: configuration.trustedProxyHops), logger: logger)
    let server = HTTPServer(
        configuration: HTTPServerConfiguration(
            host: configuration.host, port: configuration.port, threads: configuration.httpThreads, name: "gateway"),
        handler: MCPFailureShape(
            GatewayHandler(
                router: router, admin: AdminEndpoints(readiness: context.readiness), edge: edge, logger: logger)),
        logger: logger)
    logger.info(
        "gateway configured",
        [LogKeys.httpPort: .int(configuration.port), LogKeys.gatewayInstance: .string(configuration.instanceId)])
    // Stopped in reverse: the HTTP server first (no new requests), then the reply client, then the last usage report.
    return [UsageReporter.fromEnvironment(context.environment, redis: redis, logger: logger), client, server]
}
