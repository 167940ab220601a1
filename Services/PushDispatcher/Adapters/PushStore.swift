import Contracts
import Crypto
import FoundationEssentials
import Postgres
import PushCore
import Runtime

/// The route-side writers and readers of the push tables (docs/COMPATIBILITY.md#push-semantics). Every writer runs in
/// one transaction that takes the token's advisory key (`TokenLocks`) before any row lock (`FOR UPDATE OF c, p`).
public struct PushStore: Sendable {
    public let db: PostgresPool
    public let schema: PushSchema

    public init(db: PostgresPool, schema: PushSchema) {
        self.db = db
        self.schema = schema
    }

    /// A registration's id and prefs.
    public struct Registration: Sendable, Equatable {
        public var id: String
        public var prefs: [String: JSONValue]
        /// False when the user already held the active claim (idempotent re-registration).
        public var transferred: Bool
    }

    /// `push_<32 hex>`.
    static func newTokenId() -> String { "push_" + Digest.randomHex(bytes: 16) }

    /// Register: same account → bump `last_seen_at`, coalesce `device_id`, keep prefs. Otherwise reuse this user's
    /// legacy row for the token or insert one, with the ten consent flags false and no location (only that row's
    /// own `last_sent` dedupe survives, which never belonged to another account), switch the claim to it and drop
    /// the token's delivery claims.
    public func register(userId: String, expoToken: String, platform: String, deviceId: String?) async throws
        -> Registration
    {
        let s = schema
        return try await db.transaction { conn in
            try await TokenLocks.lockForTransaction(conn, [expoToken])
            let active = try await conn.query(
                """
                SELECT p.id, p.user_id FROM \(unescaped: s.claims) c
                  JOIN \(unescaped: s.tokens) p ON p.id = c.token_id AND p.user_id = c.user_id AND p.expo_token = c.expo_token
                 WHERE c.expo_token = \(expoToken)
                   FOR UPDATE OF c, p
                """)
            if let row = active.first, row.string("user_id") == userId, let id = row.string("id") {
                let updated = try await conn.query(
                    """
                    UPDATE \(unescaped: s.tokens) SET last_seen_at = now(), device_id = COALESCE(\(deviceId), device_id)
                     WHERE id = \(id) AND user_id = \(userId) RETURNING prefs
                    """)
                return Registration(id: id, prefs: Self.object(updated.first?.string("prefs")), transferred: false)
            }
            let legacy = try await conn.query(
                """
                SELECT id, prefs FROM \(unescaped: s.tokens) WHERE user_id = \(userId) AND expo_token = \(expoToken)
                   FOR UPDATE
                """)
            var prefs = PushWire.mutedFlags
            let id: String
            if let row = legacy.first, let legacyId = row.string("id") {
                id = legacyId
                if let lastSent = Self.object(row.string("prefs"))["last_sent"], case .object = lastSent {
                    prefs["last_sent"] = lastSent
                }
                try await conn.execute(
                    """
                    UPDATE \(unescaped: s.tokens)
                       SET prefs = \(try PostgresJSON(encoding: prefs)), platform = \(platform),
                           device_id = COALESCE(\(deviceId), device_id), last_seen_at = now()
                     WHERE id = \(id)
                    """)
            } else {
                id = Self.newTokenId()
                try await conn.execute(
                    """
                    INSERT INTO \(unescaped: s.tokens) (id, user_id, device_id, expo_token, platform, prefs)
                    VALUES (\(id), \(userId), \(deviceId), \(expoToken), \(platform), \(try PostgresJSON(encoding: prefs)))
                    """)
            }
            try await conn.execute(
                """
                INSERT INTO \(unescaped: s.claims) (expo_token, token_id, user_id, claimed_at)
                VALUES (\(expoToken), \(id), \(userId), now())
                ON CONFLICT (expo_token) DO UPDATE
                   SET token_id = EXCLUDED.token_id, user_id = EXCLUDED.user_id, claimed_at = EXCLUDED.claimed_at
                """)
            try await conn.execute("DELETE FROM \(unescaped: s.deliveries) WHERE expo_token = \(expoToken)")
            return Registration(id: id, prefs: prefs, transferred: true)
        }
    }

    /// The prefs of exactly `tokenId` when it is an active claim owned by `userId`; nil otherwise (never a sibling).
    public func readPrefs(userId: String, tokenId: String) async throws -> [String: JSONValue]? {
        let s = schema
        let rows = try await db.query(
            """
            SELECT p.prefs FROM \(unescaped: s.tokens) p
              JOIN \(unescaped: s.claims) c ON c.expo_token = p.expo_token AND c.token_id = p.id AND c.user_id = p.user_id
             WHERE p.id = \(tokenId) AND p.user_id = \(userId)
            """)
        guard let row = rows.first else { return nil }
        return Self.object(row.string("prefs"))
    }

    /// Merges a validated patch (`PushWire.preferencePatch`) into the caller's active claim row: shallow, with
    /// `last_sent` kept (clients cannot write it); bumps `last_seen_at`. Nil when the row is not the caller's active
    /// claim.
    public func writePrefs(userId: String, tokenId: String, patch: [String: JSONValue]) async throws -> [String:
        JSONValue]?
    {
        let s = schema
        let patch = PushWire.preferencePatch(patch) ?? [:]
        return try await db.transaction { conn in
            guard try await TokenLocks.lockInstallation(conn, table: s.tokens, tokenId: tokenId, userId: userId) != nil
            else { return nil }
            let active = try await conn.query(
                """
                SELECT p.prefs FROM \(unescaped: s.tokens) p
                  JOIN \(unescaped: s.claims) c ON c.expo_token = p.expo_token AND c.token_id = p.id AND c.user_id = p.user_id
                 WHERE p.id = \(tokenId) AND p.user_id = \(userId)
                   FOR UPDATE OF c, p
                """)
            guard let row = active.first else { return nil }
            var prefs = Self.object(row.string("prefs"))
            for (key, value) in patch { prefs[key] = value }
            let updated = try await conn.query(
                """
                UPDATE \(unescaped: s.tokens) SET prefs = \(try PostgresJSON(encoding: prefs)), last_seen_at = now()
                 WHERE id = \(tokenId) AND user_id = \(userId) RETURNING prefs
                """)
            return Self.object(updated.first?.string("prefs"))
        }
    }

    /// `DELETE /v1/push/token/:id`: only the caller's active claim row; deletes it, tombstones the claim, drops the
    /// token's delivery claims. False when it is not the caller's active claim.
    public func deleteToken(userId: String, tokenId: String) async throws -> Bool {
        let s = schema
        return try await db.transaction { conn in
            guard
                let expoToken = try await TokenLocks.lockInstallation(
                    conn, table: s.tokens, tokenId: tokenId, userId: userId)
            else { return false }
            let active = try await conn.query(
                """
                SELECT p.id FROM \(unescaped: s.tokens) p
                  JOIN \(unescaped: s.claims) c ON c.expo_token = p.expo_token AND c.token_id = p.id AND c.user_id = p.user_id
                 WHERE p.id = \(tokenId) AND p.user_id = \(userId)
                   FOR UPDATE OF c, p
                """)
            guard !active.isEmpty else { return false }
            try await Self.unlink(conn, s, tokenId: tokenId, expoToken: expoToken)
            return true
        }
    }

    /// Public revoke: claim missing or tombstoned → already-revoked; claim for another id → claim-mismatch; active
    /// row missing → already-revoked; else unlink → revoked.
    public func revokeDevice(expoToken: String, tokenId: String) async throws -> PushRevocationOutcome {
        try await revokeByToken(expoToken: expoToken) { claimTokenId, _ in claimTokenId == tokenId }
    }

    /// Bearer revoke by Expo token: as `revokeDevice`, but the claim's user must be the caller.
    public func revokeCurrentDevice(userId: String, expoToken: String) async throws -> PushRevocationOutcome {
        try await revokeByToken(expoToken: expoToken) { _, claimUserId in claimUserId == userId }
    }

    /// Expired-session revoke (the gateway verified the JWT and the 90-day rule). By Expo token only: as
    /// `revokeCurrentDevice` for `subject`. With `tokenId` (no age limit): row missing → already-revoked; row of
    /// another user → mismatch; a supplied Expo token other than the row's → mismatch; claim tombstoned → already-revoked;
    /// claim not pointing at that row and user → mismatch; else unlink → revoked.
    public func revokeExpiredSessionDevice(subject: String, expoToken: String?, tokenId: String?) async throws
        -> PushRevocationOutcome
    {
        guard let tokenId else {
            guard let expoToken else { return .alreadyRevoked }
            return try await revokeCurrentDevice(userId: subject, expoToken: expoToken)
        }
        let s = schema
        return try await db.transaction { conn in
            guard
                let row = try await conn.query(
                    "SELECT user_id, expo_token FROM \(unescaped: s.tokens) WHERE id = \(tokenId)"
                ).first, let rowToken = row.string("expo_token")
            else { return .alreadyRevoked }
            if row.string("user_id") != subject { return .claimMismatch }
            if let expoToken, expoToken != rowToken { return .claimMismatch }
            try await TokenLocks.lockForTransaction(conn, [rowToken])
            guard
                try await !conn.query(
                    "SELECT 1 FROM \(unescaped: s.tokens) WHERE id = \(tokenId) AND user_id = \(subject) FOR UPDATE"
                ).isEmpty
            else { return .alreadyRevoked }
            guard
                let claim = try await conn.query(
                    "SELECT token_id, user_id FROM \(unescaped: s.claims) WHERE expo_token = \(rowToken) FOR UPDATE"
                ).first, let claimTokenId = claim.string("token_id")
            else { return .alreadyRevoked }
            guard claimTokenId == tokenId, claim.string("user_id") == subject else { return .claimMismatch }
            try await Self.unlink(conn, s, tokenId: tokenId, expoToken: rowToken)
            return .revoked
        }
    }

    private func revokeByToken(
        expoToken: String, matches: @escaping @Sendable (_ claimTokenId: String, _ claimUserId: String?) -> Bool
    ) async throws -> PushRevocationOutcome {
        let s = schema
        return try await db.transaction { conn in
            try await TokenLocks.lockForTransaction(conn, [expoToken])
            guard
                let claim = try await conn.query(
                    "SELECT token_id, user_id FROM \(unescaped: s.claims) WHERE expo_token = \(expoToken) FOR UPDATE"
                ).first, let claimTokenId = claim.string("token_id")
            else { return .alreadyRevoked }
            let claimUserId = claim.string("user_id")
            guard matches(claimTokenId, claimUserId) else { return .claimMismatch }
            guard let claimUserId,
                try await !conn.query(
                    """
                    SELECT 1 FROM \(unescaped: s.tokens)
                     WHERE id = \(claimTokenId) AND user_id = \(claimUserId) AND expo_token = \(expoToken) FOR UPDATE
                    """
                ).isEmpty
            else { return .alreadyRevoked }
            try await Self.unlink(conn, s, tokenId: claimTokenId, expoToken: expoToken)
            return .revoked
        }
    }

    /// Deletes the row, tombstones the claim (`token_id = NULL, user_id = NULL`) and drops the token's delivery claims.
    /// The caller holds the token's advisory key and the row locks.
    static func unlink(_ conn: PostgresConnection, _ s: PushSchema, tokenId: String, expoToken: String) async throws {
        try await conn.execute("DELETE FROM \(unescaped: s.tokens) WHERE id = \(tokenId)")
        try await conn.execute(
            """
            UPDATE \(unescaped: s.claims) SET token_id = NULL, user_id = NULL, claimed_at = now()
             WHERE expo_token = \(expoToken)
            """)
        try await conn.execute("DELETE FROM \(unescaped: s.deliveries) WHERE expo_token = \(expoToken)")
    }

    /// A jsonb text as an object; anything else (NULL, a non-object) reads as `{}`.
    static func object(_ text: String?) -> [String: JSONValue] {
        guard let text, let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)),
            case .object(let object) = value
        else { return [:] }
        return object
    }
}
