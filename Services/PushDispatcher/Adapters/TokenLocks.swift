import Postgres
import PushCore

/// The advisory-lock statements in the order `TokenLocks.sorted` gives: the arrays are evaluated in order
/// (`WITH ORDINALITY`).
extension TokenLocks {
    /// Reads the physical token of installation `tokenId` (only if it is `userId`'s, when given) from `table` and takes
    /// its transaction lock; nil when there is no such row. The row's token never changes, so it can be read before
    /// the lock; callers check the claim under it.
    static func lockInstallation(_ conn: PostgresConnection, table: String, tokenId: String, userId: String? = nil)
        async throws -> String?
    {
        let rows =
            if let userId {
                try await conn.query(
                    "SELECT expo_token FROM \(unescaped: table) WHERE id = \(tokenId) AND user_id = \(userId)")
            } else {
                try await conn.query("SELECT expo_token FROM \(unescaped: table) WHERE id = \(tokenId)")
            }
        guard let expoToken = rows.first?.string("expo_token") else { return nil }
        try await lockForTransaction(conn, [expoToken])
        return expoToken
    }

    /// Transaction-level locks, released at COMMIT/ROLLBACK. `tokens` must come from `sorted`.
    static func lockForTransaction(_ conn: PostgresConnection, _ tokens: [String]) async throws {
        guard !tokens.isEmpty else { return }
        if tokens.count == 1 {
            _ = try await conn.query("SELECT pg_advisory_xact_lock(hashtextextended(\(tokens[0]), 0))")
            return
        }
        _ = try await conn.query(
            """
            SELECT count(*) FROM (
                SELECT pg_advisory_xact_lock(hashtextextended(t, 0))
                  FROM unnest(\(tokens)::text[]) WITH ORDINALITY AS u(t, n) ORDER BY n) s
            """)
    }

    /// Session-level locks held across the Expo call on a reserved connection. `tokens` must come from `sorted`.
    static func lockForSession(_ conn: PostgresConnection, _ tokens: [String]) async throws {
        guard !tokens.isEmpty else { return }
        _ = try await conn.query(
            """
            SELECT count(*) FROM (
                SELECT pg_advisory_lock(hashtextextended(t, 0))
                  FROM unnest(\(tokens)::text[]) WITH ORDINALITY AS u(t, n) ORDER BY n) s
            """)
    }

    /// Releases session-level locks in reverse order (the pool also runs `pg_advisory_unlock_all()` afterwards).
    static func unlockSession(_ conn: PostgresConnection, _ tokens: [String]) async throws {
        guard !tokens.isEmpty else { return }
        _ = try await conn.query(
            """
            SELECT count(*) FROM (
                SELECT pg_advisory_unlock(hashtextextended(t, 0))
                  FROM unnest(\(Array(tokens.reversed()))::text[]) WITH ORDINALITY AS u(t, n) ORDER BY n) s
            """)
    }
}
