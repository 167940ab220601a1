import Crypto
import Foundation
import HTTPServer
import MoneyCore
import Runtime
import ServiceKit
import Synchronization

@testable import GatewayKit

/// Entitlements from fixed account facts and usage counts, the arithmetic the real store applies after its reads.
struct FakeEntitlements: EntitlementSource {
    var accounts: [String: AccountFacts] = [:]
    var usage: [String: Int] = [:]
    var fails = false

    struct Down: Error {}

    func entitlement(userId: String?, deviceId: String?) async throws -> EntitlementState {
        if fails { throw Down() }
        if let userId { return EntitlementState(account: accounts[userId] ?? AccountFacts(), used: usage[userId] ?? 0) }
        return EntitlementState(account: nil, used: deviceId.flatMap { usage["device:" + $0] } ?? 0)
    }
}

/// Robinhood links in memory; remembers every ciphertext it was given.
final class MemoryLinks: RobinhoodLinks {
    private let rows = Mutex<[String: (ciphertext: String, status: RobinhoodStatus)]>([:])

    func ciphertext(_ userId: String) -> String? { rows.withLock { $0[userId]?.ciphertext } }

    func status(userId: String) async throws -> RobinhoodStatus {
        rows.withLock { $0[userId]?.status } ?? .notConfigured
    }

    func save(userId: String, ciphertext: String, fingerprint: String, last4: String) async throws -> RobinhoodStatus {
        let status = RobinhoodStatus(
            configured: true, fingerprint: fingerprint, last4: last4, updatedAt: "2026-12-03T10:00:00.000Z")
        rows.withLock { $0[userId] = (ciphertext, status) }
        return status
    }

    func clear(userId: String) async throws { _ = rows.withLock { $0.removeValue(forKey: userId) } }
}

/// The money routes behind the real edge (auth, device id) with in-memory stores.
struct MoneyGateway {
    let tokens = SessionTokens(
        sessions: HS256JWT(key: Array("gateway-tests-signing-key-of-32-bytes".utf8)),
        maps: HS256JWT(key: Array("gateway-tests-signing-key-of-32-bytes".utf8)))
    let links = MemoryLinks()
    let handler: GatewayHandler

    init(entitlements: FakeEntitlements = FakeEntitlements(), extra: [Route] = []) {
        let logger = Logger(label: "money-tests", level: .error)
        let lookups = LookupDeadline(budget: .seconds(2))
        let routes =
            EntitlementRoutes(entitlements: entitlements, lookups: lookups, logger: logger).routes
            + SettingsRoutes(
                links: links, sealer: TokenSealer(sessionKey: Array("gateway-tests-signing-key-of-32-bytes".utf8)),
                lookups: lookups, logger: logger
            ).routes + extra
        let edge = Edge(
            tokens: tokens,
            users: FakeUsers(users: [GatewayUnderTest.userId: GatewayUnderTest.user]),
            lookups: lookups, limiter: nil, address: ClientAddress(trustedHops: 0), logger: logger)
        handler = GatewayHandler(
            router: Router(routes), admin: AdminEndpoints(readiness: Readiness()), edge: edge, logger: logger)
    }

    func bearer(_ user: User = GatewayUnderTest.user) throws -> String {
        "Bearer " + (try tokens.issueSession(userId: user.id, email: user.email).token)
    }

    func send(
        _ method: String, _ path: String, query: String? = nil, headers: [(String, String)] = [], body: String? = nil
    ) async -> HTTPResponse {
        await drive(handler, method, path, query: query, headers: headers, body: body)
    }
}

extension HTTPResponse {
    /// The body as a JSON object (empty when it is not one).
    var object: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
    }
}
