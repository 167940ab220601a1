import Crypto
import Foundation
import HTTPServer
import MCP
import Messaging
import MoneyCore
import Postgres
import Redis
import Runtime
import ServiceKit

/// The gateway's parts built over the clients the binary made: the route table, the edge and the HTTP server.
package enum GatewayApp {
    /// The gateway schema's migrations (users, entitlements, the admin log, money).
    package static let migrations =
        UserStore.migrations + AdminLog.migrations + MoneySchema.migrations
        + [Outbox.migration(version: 31, schema: "gateway"), Outbox.traceMigration(version: 49, schema: "gateway")]

    /// The parts `ServiceMain` runs, stopped in reverse: the HTTP server first (no new requests), then the reply
    /// client, then the last usage report.
    package static func parts(
        context: ServiceContext, configuration: GatewayConfiguration, openAPI: OpenAPIDocument, redis: RedisClient,
        db: PostgresPool, client: RequestReplyClient
    ) throws -> [any Service] {
        let logger = context.logger
        let adminLog = AdminLog(db: db)
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
        let identifyGuards = IdentifyGuards(
            redis: redis, users: users, lookups: lookups, limitsEnabled: configuration.limitsEnabled,
            adminLog: adminLog, logger: logger)
        let identify = IdentifyRoute(
            photos: PhotoStore(redis: redis, ttl: configuration.photoTTL), caller: caller, guards: identifyGuards,
            budget: configuration.budgets.identify, logger: logger)
        // Company photos share identify's claim check and quota (docs/decisions/0053-company-photos.md).
        let companyPhotos = CompanyPhotoRoutes(
            photos: PhotoStore(redis: redis, ttl: configuration.photoTTL), caller: caller, guards: identifyGuards,
            publicURL: configuration.publicURL, uploadBudget: configuration.budgets.identify,
            budget: configuration.budgets.standard, logger: logger)
        let budgets = configuration.budgets
        // Plan changes are staged with the change and relayed after COMMIT; the relay publishes what that left.
        let outbox = Outbox(schema: "gateway", db: db, logger: logger) { entry, deadline in
            try await context.publisher.deliver(topic: entry.topic, key: entry.key, value: entry.value, until: deadline)
        }
        let planChanges = PlanChanges(db: db, outbox: outbox) { change in
            try context.event(
                type: PlanChangedEvent.type, schemaVersion: PlanChangedEvent.schemaVersion, key: change.userId,
                data: change)
        }
        let mcpSettings = MapvestMCP(context.environment)
        let mcp = try mcpSettings.server(
            tools: MapvestTools(
                caller: caller, ratingBudget: budgets.rating, ratingCache: RatingCachePeek(redis: redis)),
            transport: HTTPPeerTransport(client: context.http),
            limiter: configuration.limitsEnabled
                ? RedisCallLimiter(redis: redis, logger: logger) : InMemoryCallLimiter(perMinute: .max))
        let quota = AgentQuota(
            users: users, lookups: lookups, limitsEnabled: configuration.limitsEnabled, logger: logger)
        let layerMetering = LayerMetering(quota: quota, logger: logger)
        let router = Router(
            HealthRoutes.routes(configuration: configuration, openAPI: openAPI, startedAt: Date()) + auth.routes
                + [identify.route]
                + FindsRoutes(caller: caller, budget: budgets.standard).routes
                + ProgressRoutes(caller: caller, budget: budgets.standard).routes
                + PlayRoutes(caller: caller, budget: budgets.standard).routes
                + [LeaderboardRoute(caller: caller, users: users, budget: budgets.standard).route]
                + [TerritoryRoute(caller: caller, nearbyBudget: budgets.nearby, budget: budgets.standard).route]
                + RivalryRoutes(caller: caller, budget: budgets.standard, createBudget: budgets.identify).routes
                + companyPhotos.routes
                + AgentRoutes(
                    caller: caller, chatBudget: budgets.agent, budget: budgets.standard,
                    heartbeat: context.environment.milliseconds("AGENT_STREAM_HEARTBEAT_MS", default: .seconds(3)),
                    quota: quota,
                    logger: logger
                ).routes
                + AdminRoutes(
                    users: users, log: adminLog, usage: UsageTotals(redis: redis),
                    reports: AdminReports(exaUSDPerRequest: AdminReports.exaPrice(context.environment)),
                    logger: logger
                ).routes
                + PushRoutes(caller: caller, tokens: tokens, budget: budgets.standard).routes
                + [ResolveComparableRoute(caller: caller, budget: budgets.standard).route]
                + [NearbyRoute(caller: caller, budget: budgets.nearby).route]
                + [PlacesProxyRoute(caller: caller, tokens: tokens, budget: budgets.nearby).route]
                + ResearchRoutes(caller: caller, ratingBudget: budgets.rating, budget: budgets.standard).routes
                + PacketRoutes(
                    caller: caller, budget: budgets.standard,
                    quota: quota,
                    chat: PacketChatRoute(
                        caller: caller, budget: budgets.agent,
                        limiter: configuration.limitsEnabled ? PacketChatLimiter(redis: redis, logger: logger) : nil),
                    logger: logger
                ).routes
                + [
                    GraphRoute(
                        caller: caller, budget: budgets.standard, generateBudget: budgets.agent,
                        quota: quota,
                        logger: logger
                    ).route
                ]
                + [CockpitRoute(caller: caller, budget: budgets.agent).route]
                + [
                    PulseRoute(
                        caller: caller, budget: budgets.standard, generateBudget: budgets.agent, metering: layerMetering
                    ).route,
                    EnvironmentRoute(
                        caller: caller, budget: budgets.standard, generateBudget: budgets.agent, metering: layerMetering
                    ).route,
                    SynthesisRoute(
                        caller: caller, budget: budgets.standard, generateBudget: budgets.synthesis,
                        metering: layerMetering
                    ).route,
                ]
                + TickerRoutes(caller: caller, chartBudget: budgets.rating, budget: budgets.standard).routes
                + MarketDataRoutes(
                    caller: caller, budget: budgets.standard,
                    limiter: configuration.limitsEnabled ? MarketDataRateLimiter(redis: redis, logger: logger) : nil
                ).routes
                + LinkOutRoutes.routes
                + WidgetRoutes(
                    caller: caller, nearbyBudget: budgets.nearby, quoteBudget: .seconds(2),
                    publicURL: configuration.publicURL
                ).routes
                + [
                    MapSnapshotRoute(
                        caller: caller, nearbyBudget: budgets.nearby, drawBudget: budgets.standard,
                        google: context.environment.get("GOOGLE_MAPS_API_KEY").map {
                            StaticMapProxy(
                                http: context.http, apiKey: $0,
                                baseURL: context.environment.get(
                                    "GOOGLE_STATIC_MAPS_BASE_URL", default: StaticMapProxy.defaultBaseURL),
                                timeout: .seconds(4))
                        }
                    ).route
                ]
                + MCPRoutes(
                    server: mcp, address: MCPAddress(rule: ClientAddress(trustedHops: mcpSettings.trustedProxyHops))
                ).routes
                + AlertRoutes(caller: caller, budget: budgets.standard).routes
                + [BacktestRoute(caller: caller, budget: budgets.rating).route]
                + MemoRoutes(caller: caller, memoBudget: budgets.brief, budget: budgets.standard).routes
                + WatchlistRoutes(
                    caller: caller, budget: budgets.standard, briefBudget: budgets.brief,
                    addBudget: budgets.watchlistAdd
                ).routes
                + LocalBriefRoutes(caller: caller, budget: budgets.standard, briefBudget: budgets.brief).routes
                + EntitlementRoutes(entitlements: users, lookups: lookups, logger: logger).routes
                + SettingsRoutes(
                    links: RobinhoodStore(db: db), sealer: TokenSealer(sessionKey: configuration.sessionKey),
                    lookups: lookups, logger: logger
                ).routes
                + BillingRoutes.live(
                    settings: BillingSettings(context.environment), http: context.http, db: db,
                    changes: planChanges, lookups: lookups, logger: logger
                ).routes
                + [
                    AppleRoute(
                        verifier: AppleTransactionVerifier(context.environment),
                        accounts: AppleLedger(db: db, changes: planChanges), entitlements: users, lookups: lookups,
                        logger: logger
                    ).route
                ])
        openAPI.report(router, logger: logger)
        let edge = Edge(
            tokens: tokens, users: users, lookups: lookups,
            limiter: configuration.limitsEnabled ? GlobalRateLimiter(redis: redis, logger: logger) : nil,
            address: ClientAddress(trustedHops: configuration.trustedProxyHops), logger: logger)
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(
                host: configuration.host, port: configuration.port, threads: configuration.httpThreads,
                headTimeout: configuration.headTimeout, perClientConnectionLimit: configuration.connectionsPerClient,
                name: "gateway"),
            handler: MCPFailureShape(
                GatewayHandler(
                    router: router, admin: AdminEndpoints(readiness: context.readiness), edge: edge, logger: logger)),
            logger: logger)
        logger.info(
            "gateway configured",
            [LogKeys.httpPort: .int(configuration.port), LogKeys.gatewayInstance: .string(configuration.instanceId)])
        return [
            UsageReporter.fromEnvironment(context.environment, redis: redis, logger: logger),
            OutboxRelay.fromEnvironment(context.environment, outbox: outbox), client, server,
        ]
    }
}
