import Contracts
import Foundation
import HTTPServer
import Runtime

/// Edge concerns that run from the headers alone, before any body byte is read: who is calling, the global limiter,
/// and route-level authentication.
struct Edge: Sendable {
    let tokens: SessionTokens
    let users: any UserLookup
    /// Bounds the signed-in user's lookup.
    let lookups: LookupDeadline
    /// Nil when limits are off (dev benchmarks only).
    let limiter: GlobalRateLimiter?
    let address: ClientAddress
    let logger: Logger

    func caller(_ head: HTTPRequestHead) -> Caller {
        let device = head.headers["X-Device-Id"]?.trimmingCharacters(in: .whitespaces)
        return Caller(
            session: SessionTokens.bearer(head.headers["Authorization"]).flatMap { try? tokens.verifySession($0) },
            user: nil, deviceId: device.flatMap { (1...128).contains($0.count) ? $0 : nil },
            clientIP: address.resolve(head))
    }

    /// Required bearer auth (docs/COMPATIBILITY.md#sign-in): a 401 body, or the caller with its user loaded.
    func authenticate(_ caller: Caller, _ head: HTTPRequestHead) async -> Result<Caller, HTTPResponse> {
        guard let token = SessionTokens.bearer(head.headers["Authorization"]) else {
            return .failure(.error(401, "missing bearer token"))
        }
        let session: SessionTokens.Session
        do {
            session = try tokens.verifySession(token)
        } catch .wrongPurpose {
            return .failure(.error(.wrongTokenPurpose))
        } catch .noSubject {
            return .failure(.error(401, "invalid token subject"))
        } catch {
            return .failure(.error(401, "invalid token"))
        }
        do {
            let users = self.users
            let user = try await lookups.run { () async throws -> User? in
                if let user = try await users.find(id: session.userId) { return user }
                guard let email = session.email else { return nil }
                return try await users.restore(id: session.userId, email: email)
            }
            guard let user else { return .failure(.error(.unknownUser)) }
            var authenticated = caller
            authenticated.session = session
            authenticated.user = user
            return .success(authenticated)
        } catch {
            logger.warning("user store unavailable", [LogKeys.error: "\(error)"])
            return .failure(.error(503, "user store unavailable"))
        }
    }
}

/// The lookups required auth makes for a verified session: `UserStore` in the binary, a table in tests.
protocol UserLookup: Sendable {
    func find(id: String) async throws -> User?
    /// Recreates a user a valid session names but the store lost (same id and email), or nil.
    func restore(id: String, email: String) async throws -> User?
}

/// Sign-in's one user operation: the user of an email address, created on first sign-in.
protocol AccountStore: Sendable {
    func findOrCreate(email: String) async throws -> User
}

extension UserStore: UserLookup, AccountStore {}
