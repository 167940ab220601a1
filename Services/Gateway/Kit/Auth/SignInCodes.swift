import Crypto
import Foundation
import Redis
import Runtime

/// What checking a sign-in code came to.
enum SignInOutcome: Equatable {
    case ok, noCode, expired, wrong
}

/// Where sign-in codes and pending magic links live: `SignInCodes` (Redis) in the binary, memory in tests.
protocol SignInCodeStore: Sendable {
    /// Issues a new code for `email`, replacing any earlier one.
    func issue(email: String) async throws -> String
    func verify(email: String, code: String) async throws -> SignInOutcome
    /// Records a pending magic link (jti → email).
    func rememberMagicLink(jti: String, email: String) async throws
    /// Consumes a pending magic link: its email, or nil when already used or expired.
    func consumeMagicLink(jti: String) async throws -> String?
}

/// Emailed six-digit sign-in codes and single-use magic-link ids, kept in Redis with their TTLs.
/// Codes are stored as HMACs, compared in constant time, and die after five wrong guesses.
struct SignInCodes: SignInCodeStore {
    static let codeLifetime: Duration = .seconds(600)
    static let maxAttempts = 5

    let redis: RedisClient
    /// Keys the code HMACs so a Redis dump does not reveal live codes.
    let secret: [UInt8]

    private struct Stored: Codable {
        var mac: String
        var expiresAt: Double
        var attempts: Int
    }

    private func key(_ email: String) -> String {
        "mapvest:signin:" + Digest.hex(Digest.sha256(Array(email.lowercased().utf8)))
    }

    private func mac(_ code: String, _ email: String) -> String {
        Digest.hex(Digest.hmacSHA256(key: secret, message: Array((email.lowercased() + ":" + code).utf8)))
    }

    /// Issues a new code for `email`, replacing any earlier one.
    func issue(email: String) async throws -> String {
        let now = Date()
        let code = String(
            format: "%06d", Int(Digest.randomBytes(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } % 1_000_000))
        let stored = Stored(
            mac: mac(code, email), expiresAt: now.addingTimeInterval(Self.codeLifetime.inSeconds).timeIntervalSince1970,
            attempts: 0)
        // Kept past expiry so a late attempt hears "code expired" rather than "no code issued".
        try await redis.set(key(email), Array(try JSONEncoder().encode(stored)), ttl: .seconds(24 * 3600))
        return code
    }

    func verify(email: String, code: String) async throws -> SignInOutcome {
        let now = Date()
        let key = key(email)
        guard let bytes = try await redis.get(key),
            var stored = try? JSONDecoder().decode(Stored.self, from: Data(bytes))
        else { return .noCode }
        guard now.timeIntervalSince1970 < stored.expiresAt else { return .expired }
        if Digest.constantTimeEqual(Array(stored.mac.utf8), Array(mac(code, email).utf8)) {
            try await redis.delete(key)
            return .ok
        }
        stored.attempts += 1
        if stored.attempts >= Self.maxAttempts {
            stored.expiresAt = 0
        }
        try await redis.set(key, Array(try JSONEncoder().encode(stored)), ttl: .seconds(24 * 3600))
        return .wrong
    }

    /// Records a pending magic link (jti → email) for ten minutes.
    func rememberMagicLink(jti: String, email: String) async throws {
        try await redis.set("mapvest:magic:" + jti, Array(email.lowercased().utf8), ttl: Self.codeLifetime)
    }

    /// Consumes a pending magic link: its email, or nil when already used or expired.
    func consumeMagicLink(jti: String) async throws -> String? {
        let key = "mapvest:magic:" + jti
        guard let email = try await redis.get(key) else { return nil }
        guard try await redis.delete(key) == 1 else { return nil }
        return String(decoding: email, as: UTF8.self)
    }
}
