import Crypto
import Foundation

/// Claims of the three token purposes (docs/COMPATIBILITY.md#tokens). Unknown claims are ignored.
struct TokenClaims: Codable, ExpiringClaims, Sendable {
    var purpose: String
    var sub: String?
    var email: String?
    var jti: String?
    var iat: Int64?
    var exp: Int64?
}

/// Issues and verifies HS256 session, magic-link and maps tokens. Only HS256 is accepted; the purpose and expiry
/// are checked on every use.
struct SessionTokens: Sendable {
    static let sessionLifetime: TimeInterval = 30 * 24 * 3600
    static let magicLifetime: TimeInterval = 10 * 60
    static let mapsLifetime: TimeInterval = 60 * 60

    let sessions: HS256JWT
    let maps: HS256JWT

    /// A verified session: the user id and when the token expires.
    struct Session: Sendable {
        let userId: String
        let email: String?
        let expiresAt: Date
    }

    enum Rejection: Error, Equatable {
        case invalid, wrongPurpose, noSubject
        /// A still-valid session offered where only an expired one is accepted.
        case notExpired
    }

    func issueSession(userId: String, email: String, now: Date = Date()) throws -> (token: String, expiresAt: Date) {
        let expiresAt = now.addingTimeInterval(Self.sessionLifetime)
        let claims = TokenClaims(
            purpose: "session", sub: userId, email: email, iat: Int64(now.timeIntervalSince1970),
            exp: Int64(expiresAt.timeIntervalSince1970))
        return (try sessions.sign(claims), expiresAt)
    }

    func issueMagic(email: String, jti: String, now: Date = Date()) throws -> String {
        try sessions.sign(
            TokenClaims(
                purpose: "magic", email: email, jti: jti, iat: Int64(now.timeIntervalSince1970),
                exp: Int64(now.addingTimeInterval(Self.magicLifetime).timeIntervalSince1970)))
    }

    func issueMaps(userId: String, now: Date = Date()) throws -> (token: String, expiresAt: Date) {
        let expiresAt = now.addingTimeInterval(Self.mapsLifetime)
        let claims = TokenClaims(
            purpose: "maps", sub: userId, iat: Int64(now.timeIntervalSince1970),
            exp: Int64(expiresAt.timeIntervalSince1970))
        return (try maps.sign(claims), expiresAt)
    }

    /// Verifies a session token: signature (HS256 only), expiry, `purpose: session`, a non-empty `sub`.
    func verifySession(_ token: String, now: Date = Date()) throws(Rejection) -> Session {
        let (claims, sub) = try verified(token, sessions, purpose: "session", now: now)
        return Session(
            userId: sub, email: claims.email, expiresAt: Date(timeIntervalSince1970: TimeInterval(claims.exp ?? 0)))
    }

    /// Only for `POST /v1/push/revoke-expired-session-device` (docs/COMPATIBILITY.md#push-semantics): signature (HS256
    /// only), `purpose: session` and a non-empty `sub`, with the expiry check disabled — and the token must actually be
    /// expired (`exp ≤ now`). Returns the subject and when the session expired.
    func verifyExpiredSession(_ token: String, now: Date = Date()) throws(Rejection) -> (
        userId: String, expiredAt: Date
    ) {
        let (claims, sub) = try verified(token, sessions, purpose: "session", now: now, checkExpiry: false)
        guard let exp = claims.exp, TimeInterval(exp) <= now.timeIntervalSince1970 else { throw .notExpired }
        return (sub, Date(timeIntervalSince1970: TimeInterval(exp)))
    }

    /// Verifies a magic-link token; the caller checks single use by `jti`.
    func verifyMagic(_ token: String, now: Date = Date()) throws(Rejection) -> TokenClaims {
        let claims: TokenClaims
        do {
            claims = try sessions.verify(token, as: TokenClaims.self, now: now)
        } catch {
            throw .invalid
        }
        guard claims.purpose == "magic" else { throw .wrongPurpose }
        return claims
    }

    /// Verifies a maps token (docs/COMPATIBILITY.md#maps-token) with the maps key: signature (HS256 only), expiry,
    /// `purpose: maps`, a non-empty `sub`. Returns the subject.
    func verifyMaps(_ token: String, now: Date = Date()) throws(Rejection) -> String {
        try verified(token, maps, purpose: "maps", now: now).sub
    }

    /// Signature (HS256 only) under `jwt` and, unless disabled, expiry; then the purpose and a non-empty `sub`.
    private func verified(
        _ token: String, _ jwt: HS256JWT, purpose: String, now: Date, checkExpiry: Bool = true
    ) throws(Rejection) -> (claims: TokenClaims, sub: String) {
        let claims: TokenClaims
        do {
            claims = try jwt.verify(token, as: TokenClaims.self, now: now, checkExpiry: checkExpiry)
        } catch {
            throw .invalid
        }
        guard claims.purpose == purpose else { throw .wrongPurpose }
        guard let sub = claims.sub, !sub.isEmpty else { throw .noSubject }
        return (claims, sub)
    }

    /// The bearer token of an `Authorization: Bearer <token>` header, if that is its shape.
    static func bearer(_ header: String?) -> String? {
        guard let header, header.count > 7, header.prefix(7).lowercased() == "bearer " else { return nil }
        let token = header.dropFirst(7).trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
