import Contracts
import Crypto
import Foundation
import HTTPServer
import MCP
import Messaging
import Runtime
import ServiceKit
import Synchronization
import Testing

@testable import GatewayKit

/// Records every command the routes send and answers each with `reply` (or fails it with `failure`).
final class RecordingTransport: CommandTransport {
    private let sent = Mutex<[OutgoingCommand]>([])
    private let outcome: Result<Reply, RequestError>

    init(_ outcome: Result<Reply, RequestError> = .success(Reply(status: 200, body: Array(#"{"ok":true}"#.utf8)))) {
        self.outcome = outcome
    }

    var commands: [OutgoingCommand] { sent.withLock { $0 } }

    func request(_ command: OutgoingCommand, budget: Duration) async throws(RequestError) -> Reply {
        sent.withLock { $0.append(command) }
        return try outcome.get()
    }
}

/// Users by id. `restore` re-creates a lost user as `UserStore` does, unless another user already has the email
/// (there, the insert does nothing and the user stays unknown).
struct FakeUsers: UserLookup {
    let users: [String: User]

    func find(id: String) async throws -> User? { users[id] }
    func restore(id: String, email: String) async throws -> User? {
        let email = email.lowercased()
        guard !users.values.contains(where: { $0.email == email }) else { return nil }
        return User(id: id, email: email, createdAt: "2026-01-01T00:00:00.000Z", scopes: ["user"])
    }
}

/// The gateway's handler over every route that needs only the service caller and the token keys, with a recording
/// transport and one known user: requests in, responses and recorded commands out — no socket, no broker.
struct GatewayUnderTest {
    static let userId = "usr_test"
    static let user = User(
        id: userId, email: "test@example.com", createdAt: "2026-01-01T00:00:00.000Z", scopes: ["user"])
    static let admin = User(
        id: "usr_admin", email: "admin@example.com", createdAt: "2026-01-01T00:00:00.000Z", scopes: ["user", "admin"])
    static let budgets = RouteBudgets(Environment([:]))
    static let openAPIFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/openapi.yaml").path

    let transport: RecordingTransport
    let mail = RecordingMail()
    let photos = MemoryPhotos()
    let gate: RecordingGate
    let adminData: FakeAdminData
    /// One key for both purposes, as when `IOS_MAPS_TOKEN_SIGNING_KEY` is unset: only the purpose tells them apart.
    let tokens = SessionTokens(
        sessions: HS256JWT(key: Array("gateway-tests-signing-key-of-32-bytes".utf8)),
        maps: HS256JWT(key: Array("gateway-tests-signing-key-of-32-bytes".utf8)))
    /// The gateway's handler as the binary serves it: MCP failures JSON-RPC shaped.
    let handler: MCPFailureShape<GatewayHandler>

    init(
        transport: RecordingTransport = RecordingTransport(), gate: RecordingGate = RecordingGate(),
        adminData: FakeAdminData = FakeAdminData()
    ) throws {
        self.transport = transport
        self.gate = gate
        self.adminData = adminData
        let caller = ServiceCaller(client: transport)
        let budgets = Self.budgets
        let logger = Logger(label: "gateway-tests", level: .error)
        let configuration = GatewayConfiguration(Environment(["MAPVEST_ENV": "dev"]))
        let openAPI = try OpenAPIDocument.load(path: Self.openAPIFile)
        let lookups = LookupDeadline(budget: .seconds(2))
        let auth = AuthRoutes(
            tokens: tokens, users: FakeAccounts(), codes: MemoryCodes(), lookups: lookups, mail: mail,
            returnCodes: true, publicURL: "http://gateway.test", logger: logger)
        let routes =
            HealthRoutes.routes(configuration: configuration, openAPI: openAPI, startedAt: Date()) + auth.routes
            + [
                IdentifyRoute(photos: photos, caller: caller, guards: gate, budget: budgets.identify, logger: logger)
                    .route
            ]
            + FindsRoutes(caller: caller, budget: budgets.standard).routes
            + AdminRoutes(
                users: adminData, log: adminData, usage: adminData,
                reports: AdminReports(exaUSDPerRequest: 0.005), logger: logger
            ).routes
            + ProgressRoutes(caller: caller, budget: budgets.standard).routes
            + AgentRoutes(
                caller: caller, chatBudget: budgets.agent, budget: budgets.standard, heartbeat: .seconds(15),
                quota: gate,
                logger: logger
            ).routes
            + PushRoutes(caller: caller, tokens: tokens, budget: budgets.standard).routes
            + [ResolveComparableRoute(caller: caller, budget: budgets.standard).route]
            + [NearbyRoute(caller: caller, budget: budgets.nearby).route]
            + [PlacesProxyRoute(caller: caller, tokens: tokens, budget: budgets.nearby).route]
            + ResearchRoutes(caller: caller, ratingBudget: budgets.rating, budget: budgets.standard).routes
            + PacketRoutes(
                caller: caller, budget: budgets.standard, quota: gate,
                chat: PacketChatRoute(caller: caller, budget: budgets.agent, limiter: nil), logger: logger
            ).routes
            + TickerRoutes(caller: caller, chartBudget: budgets.rating, budget: budgets.standard).routes
            + MarketDataRoutes(caller: caller, budget: budgets.standard, limiter: nil).routes
            + LinkOutRoutes.routes
            + WidgetRoutes(
                caller: caller, nearbyBudget: budgets.nearby, quoteBudget: .seconds(2), publicURL: "http://gateway.test"
            ).routes
            + [
                MapSnapshotRoute(
                    caller: caller, nearbyBudget: budgets.nearby, drawBudget: budgets.standard, google: nil
                ).route
            ]
            + AlertRoutes(caller: caller, budget: budgets.standard).routes
            + [BacktestRoute(caller: caller, budget: budgets.rating).route]
            + MemoRoutes(caller: caller, memoBudget: budgets.brief, budget: budgets.standard).routes
            + WatchlistRoutes(
                caller: caller, budget: budgets.standard, briefBudget: budgets.brief, addBudget: budgets.watchlistAdd
            ).routes
            + LocalBriefRoutes(caller: caller, budget: budgets.standard, briefBudget: budgets.brief).routes
        let mcpSettings = MapvestMCP(Environment(["MAPVEST_ENV": "dev"]))
        let mcp = try mcpSettings.server(
            tools: MapvestTools(caller: caller, ratingBudget: budgets.rating, ratingCache: RatingCachePeek(redis: nil)),
            transport: UnreachablePeers(), limiter: InMemoryCallLimiter(perMinute: .max))
        let mcpRoutes = MCPRoutes(
            server: mcp, address: MCPAddress(rule: ClientAddress(trustedHops: mcpSettings.trustedProxyHops))
        ).routes
        let edge = Edge(
            tokens: tokens, users: FakeUsers(users: [Self.userId: Self.user, Self.admin.id: Self.admin]),
            lookups: lookups, limiter: nil, address: ClientAddress(trustedHops: 0),
            logger: logger)
        handler = MCPFailureShape(
            GatewayHandler(
                router: Router(routes + mcpRoutes), admin: AdminEndpoints(readiness: Readiness()), edge: edge,
                logger: logger))
    }

    /// A bearer for the known user (or `user`).
    func bearer(_ user: User = Self.user) throws -> String {
        "Bearer " + (try tokens.issueSession(userId: user.id, email: user.email).token)
    }

    /// Runs a request through the handler as the server does (see `drive`).
    func send(
        _ method: String, _ path: String, query: String? = nil, headers: [(String, String)] = [], body: String? = nil
    ) async -> HTTPResponse {
        await drive(handler, method, path, query: query, headers: headers, body: body)
    }
}

/// Runs a request through `handler` as the server does: `immediate`, else `head`, then (when it admits the
/// request) the body limit and `handle`.
func drive(
    _ handler: some HTTPHandler, _ method: String, _ path: String, query: String? = nil,
    headers: [(String, String)] = [], body: String? = nil
) async -> HTTPResponse {
    let bytes = body.map { Array($0.utf8) } ?? []
    var fields = headers
    if body != nil { fields.append(("Content-Length", String(bytes.count))) }
    let head = HTTPRequestHead(
        method: method, path: path, rawQuery: query, headers: HTTPHeaders(fields),
        contentLength: body.map { _ in bytes.count })
    if body == nil, let now = handler.immediate(head) { return now }
    switch await handler.head(head) {
    case .respond(let response):
        return response
    case .readBody(let limit, let tooLarge, let state):
        guard bytes.count <= limit else { return tooLarge }
        return await handler.handle(HTTPRequest(head: head, body: bytes), state: state)
    }
}

/// The admin routes' users, log and usage counters, in memory; `logFails` makes every log write fail.
final class FakeAdminData: AdminDirectory, AdminJournal, UsageSource {
    let adminEmails: Set<String> = [GatewayUnderTest.admin.email]
    private let logFails: Bool
    private let entries = Mutex<[AdminLogEntry]>([])
    private let limits = Mutex<[Int]>([])

    init(logFails: Bool = false) { self.logFails = logFails }

    var log: [AdminLogEntry] { entries.withLock { $0 } }
    /// The `limit` of every list read.
    var listLimits: [Int] { limits.withLock { $0 } }

    static func adminUser(freeForever: Bool = false, reason: String? = nil) -> AdminUser {
        let user = GatewayUnderTest.user
        return AdminUser(
            id: user.id, email: user.email, createdAt: user.createdAt, scopes: user.scopes,
            entitlement: Entitlement(freeForever: freeForever, reason: reason, plan: "none"))
    }

    func list(limit: Int) async throws -> [AdminUser] {
        limits.withLock { $0.append(limit) }
        return [Self.adminUser()]
    }

    func setFreeForever(userId: String, _ on: Bool, reason: String?, admin: String) async throws -> AdminUser? {
        userId == GatewayUnderTest.userId ? Self.adminUser(freeForever: on, reason: reason) : nil
    }

    struct LogDown: Error {}

    func append(kind: String, actor: String?, subject: String?, detail: [String: String]) async throws {
        if logFails { throw LogDown() }
        entries.withLock {
            $0.append(
                AdminLogEntry(
                    id: $0.count + 1, kind: kind, actor: actor, subject: subject, detail: detail, createdAt: ""))
        }
    }

    func recent(limit: Int) async throws -> [AdminLogEntry] {
        limits.withLock { $0.append(limit) }
        return log
    }

    func sum(hours: Int) async throws -> [UsageTotals.Series] {
        [UsageTotals.Series(name: "gateway_requests_total", labels: ["route": "/v1/nearby"], value: 5)]
    }
}

/// MCP peers that never answer.
struct UnreachablePeers: MCPPeerTransport {
    func post(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration) async -> MCPPeerReply {
        .failed(reason: "unreachable")
    }
}

/// Photos by key, in memory.
final class MemoryPhotos: PhotoClaims {
    private let stored = Mutex<[String: [UInt8]]>([:])

    var photos: [String: [UInt8]] { stored.withLock { $0 } }

    func put(_ bytes: [UInt8]) async throws -> String {
        let key = IdentifyPhotoCommand.photoKeyPrefix + "test\(stored.withLock { $0.count })"
        stored.withLock { $0[key] = bytes }
        return key
    }
}

/// The identify guards' verdict, fixed (`reject`, else the rate-limit header), and the usage counted.
final class RecordingGate: IdentifyGate {
    private let reject: HTTPResponse?
    private let counted = Mutex<[String]>([])

    init(reject: HTTPResponse? = nil) { self.reject = reject }

    /// `userId|deviceId` per usage still counted (released ones left out).
    var usage: [String] { counted.withLock { $0.filter { $0 != "released" } } }

    func check(_ caller: Caller, _ head: HTTPRequestHead) async -> (
        reject: HTTPResponse?, headers: [(String, String)]
    ) {
        (reject, [("X-Identify-RateLimit-Limit", "10")])
    }

    func hold(userId: String?, deviceId: String?) async -> (usage: Int64?, reject: HTTPResponse?) {
        let usage = counted.withLock {
            $0.append((userId ?? "-") + "|" + (deviceId ?? "-"))
            return Int64($0.count - 1)
        }
        return (usage, nil)
    }

    func release(_ usage: Int64) async { counted.withLock { $0[Int(usage)] = "released" } }
}

/// The research chat's quota as the same fixed verdict: the device-id rule, then `reject`; usage as `kind|user|device`.
extension RecordingGate: GenerationQuota {
    func check(_ caller: Caller) async -> HTTPResponse? {
        if caller.session == nil && caller.deviceId == nil { return .error(.deviceIdRequired) }
        return reject
    }

    func record(userId: String?, deviceId: String?, kind: String) async throws {
        counted.withLock { $0.append(kind + ":" + (userId ?? "-") + "|" + (deviceId ?? "-")) }
    }
}

/// Sign-in's user: the known user for its address, a new id for any other.
struct FakeAccounts: AccountStore {
    func findOrCreate(email: String) async throws -> User {
        let email = email.lowercased()
        if email == GatewayUnderTest.user.email { return GatewayUnderTest.user }
        return User(id: "usr_new", email: email, createdAt: "2026-01-01T00:00:00.000Z", scopes: ["user"])
    }
}

/// Codes and pending magic links in memory; every code issued is `123456`.
final class MemoryCodes: SignInCodeStore {
    private let codes = Mutex<[String: String]>([:])
    private let links = Mutex<[String: String]>([:])

    func issue(email: String) async throws -> String {
        codes.withLock { $0[email] = "123456" }
        return "123456"
    }

    func verify(email: String, code: String) async throws -> SignInOutcome {
        codes.withLock { codes in
            guard let issued = codes[email] else { return .noCode }
            guard issued == code else { return .wrong }
            codes[email] = nil
            return .ok
        }
    }

    func rememberMagicLink(jti: String, email: String) async throws { links.withLock { $0[jti] = email } }

    func consumeMagicLink(jti: String) async throws -> String? { links.withLock { $0.removeValue(forKey: jti) } }
}

/// Keeps every mail sent.
final class RecordingMail: MailSender {
    private let sent = Mutex<[(to: String, body: String)]>([])

    var mails: [(to: String, body: String)] { sent.withLock { $0 } }

    func send(to email: String, subject: String, body: String) async throws {
        sent.withLock { $0.append((email, body)) }
    }
}

extension HTTPResponse {
    /// The `error` of a flat error body.
    var errorMessage: String? {
        guard let value = try? JSONDecoder().decode([String: JSONValue].self, from: Data(body)),
            case .string(let message)? = value["error"]
        else { return nil }
        return message
    }

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

extension OutgoingCommand {
    /// The command body as a JSON object.
    var fields: [String: JSONValue] {
        (try? JSONDecoder().decode([String: JSONValue].self, from: Data(body))) ?? [:]
    }
}
