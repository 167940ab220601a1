import Contracts
import Foundation
import Postgres
import Runtime

/// The scale-curve runs for `scripts/bench-scale.sh`: the 7 am daily briefs, the movers scan and the price-alert scan
/// over `<prefix>-…` users, each timed from the scan's publish to the last distinct push request on the push topic,
/// with the Postgres statements it ran (`pg_stat_statements`, so Postgres must preload it).

/// Empties the tables the user scans expand over, so one size's run does not also work through another's users.
func clearUsers() async throws {
    let db = try await PostgresPool.make(url: try Environment().require("POSTGRES_URL"), size: 1, logger: logger)
    try await db.execute("TRUNCATE briefs.watchlist_lists, briefs.user_watchlist, briefs.price_alerts")
    await db.close()
}

/// Gives users `<prefix>-<i>` two active `price_above 50` alerts each (on the tickers `seed` gives them), which the
/// fake's price of 100 fires.
func seedAlerts(users: Int, prefix: String) async throws {
    let db = try await PostgresPool.make(url: try Environment().require("POSTGRES_URL"), size: 1, logger: logger)
    try await db.execute(
        """
        INSERT INTO briefs.price_alerts (id, user_id, ticker, kind, threshold)
        SELECT 'alt_' || \(prefix) || '_' || i || t, \(prefix) || '-' || i, t || (i % 200), 'price_above', 50
        FROM generate_series(1, \(users)) AS i, unnest(ARRAY['BA', 'BB']) AS t
        ON CONFLICT DO NOTHING
        """)
    await db.close()
}

/// Runs `command` over `users` users expecting `expected` distinct pushes named by `pick`, and prints the wall time,
/// the duplicates and the statements per user.
func scaleRun(
    command: String, users: Int, expected: Int, label: String, pick: @escaping @Sendable (PushRequest) -> String?
) async throws {
    let db = try await PostgresPool.make(url: try Environment().require("POSTGRES_URL"), size: 1, logger: logger)
    try await db.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
    let (unique, total, elapsed) = try await timedRun(
        command: command, expected: expected, progress: label,
        before: { _ = try await db.query("SELECT pg_stat_statements_reset()") }, pick: pick)
    // This tool's own statements (the reset, this read) are left out by their text.
    let statements = try await db.query(
        """
        SELECT calls, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS query FROM pg_stat_statements
        WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY calls DESC
        """)
    let calls = statements.compactMap { $0.int("calls") }.reduce(0, +)
    print(
        String(
            format: "%ld users: %ld %@ (%ld duplicates) in %.2f s; Postgres %ld statements, %.2f per user", users,
            unique, label, total - unique, elapsed.inSeconds, calls, Double(calls) / Double(max(users, 1))))
    for row in statements.prefix(4) { print("  \(row.int("calls") ?? 0) × \(row.string("query") ?? "")") }
    await db.close()
}

/// Names a push request of `key` for a `<prefix>-…` user by its id (one per user, or per user and ticker).
func pushes(_ key: PushEventKey, prefix: String) -> @Sendable (PushRequest) -> String? {
    { request in
        guard request.eventKey == key, let user = request.userIds.first, user.hasPrefix(prefix + "-") else {
            return nil
        }
        return request.id
    }
}
