import Postgres

/// Whether a user has linked a Robinhood MCP key, as the settings routes show it (never the key).
struct RobinhoodStatus: Codable, Sendable, Equatable {
    var configured: Bool
    var fingerprint: String?
    var last4: String?
    var updatedAt: String?

    static let notConfigured = RobinhoodStatus(configured: false)
}

/// The stored Robinhood MCP links, one per user.
protocol RobinhoodLinks: Sendable {
    func status(userId: String) async throws -> RobinhoodStatus
    /// Stores (or replaces) the user's sealed key and returns what the API shows of it.
    func save(userId: String, ciphertext: String, fingerprint: String, last4: String) async throws -> RobinhoodStatus
    func clear(userId: String) async throws
}

/// `gateway.user_robinhood_mcp`: one row per user, upserted.
struct RobinhoodStore: RobinhoodLinks {
    let db: PostgresPool

    private static let updatedAt =
        "to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') AS updated_at_iso"

    private static func status(_ row: PostgresRow?) -> RobinhoodStatus {
        guard let row, let fingerprint = row.string("fingerprint") else { return .notConfigured }
        return RobinhoodStatus(
            configured: true, fingerprint: fingerprint, last4: row.string("last4"),
            updatedAt: row.string("updated_at_iso"))
    }

    func status(userId: String) async throws -> RobinhoodStatus {
        Self.status(
            try await db.query(
                """
                SELECT fingerprint, last4, \(unescaped: Self.updatedAt)
                FROM gateway.user_robinhood_mcp WHERE user_id = \(userId)
                """
            ).first)
    }

    func save(userId: String, ciphertext: String, fingerprint: String, last4: String) async throws -> RobinhoodStatus {
        Self.status(
            try await db.query(
                """
                INSERT INTO gateway.user_robinhood_mcp (user_id, token_ciphertext, fingerprint, last4, updated_at)
                VALUES (\(userId), \(ciphertext), \(fingerprint), \(last4), now())
                ON CONFLICT (user_id) DO UPDATE SET token_ciphertext = EXCLUDED.token_ciphertext,
                    fingerprint = EXCLUDED.fingerprint, last4 = EXCLUDED.last4, updated_at = EXCLUDED.updated_at
                RETURNING fingerprint, last4, \(unescaped: Self.updatedAt)
                """
            ).first)
    }

    func clear(userId: String) async throws {
        _ = try await db.execute("DELETE FROM gateway.user_robinhood_mcp WHERE user_id = \(userId)")
    }
}
