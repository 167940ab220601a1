import Contracts
import Crypto
import Foundation
import Postgres

/// Price alerts in Briefs' schema (`briefs.price_alerts`), every query scoped by the owner's user id: another
/// user's alert id is simply not found. An alert is active until it fires (`triggered_at`) or is disabled.
struct PriceAlertStore: Sendable {
    let db: PostgresPool

    /// Migrated separately from the watchlist migrations, with versions of its own range (20+).
    static let migrations: [Migration] = [
        Migration(
            version: 20, name: "price alerts",
            sql: """
                CREATE TABLE IF NOT EXISTS briefs.price_alerts (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL,
                    ticker TEXT NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('price_above', 'price_below', 'pct_move')),
                    threshold DOUBLE PRECISION NOT NULL,
                    note TEXT,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
                    triggered_at TIMESTAMPTZ,
                    disabled BOOLEAN NOT NULL DEFAULT false
                );
                CREATE INDEX IF NOT EXISTS price_alerts_user_idx ON briefs.price_alerts (user_id, created_at DESC);
                CREATE INDEX IF NOT EXISTS price_alerts_active_idx ON briefs.price_alerts (user_id)
                    WHERE NOT disabled AND triggered_at IS NULL;
                """)
    ]

    private static let columns = """
        id, ticker, kind, threshold, note, disabled,
        to_char(created_at AT TIME ZONE 'UTC', \(WatchlistStore.iso)) AS created_iso,
        to_char(triggered_at AT TIME ZONE 'UTC', \(WatchlistStore.iso)) AS triggered_iso
        """

    static func alert(_ row: PostgresRow) -> PriceAlert? {
        guard let id = row.string("id"), let ticker = row.string("ticker"),
            let kind = row.string("kind").flatMap(PriceAlertKind.init(rawValue:)),
            let threshold = row.double("threshold"),
            let created = row.string("created_iso")
        else { return nil }
        return PriceAlert(
            id: id, ticker: ticker, kind: kind, threshold: threshold, note: row.string("note"), createdAt: created,
            triggeredAt: row.string("triggered_iso"), disabled: row.bool("disabled") ?? false)
    }

    /// Creates an alert. With a `requestKey` the id is derived from it, so a redelivered command (at-least-once
    /// delivery) returns the alert its first delivery made instead of creating a second one.
    func create(
        userId: String, ticker: String, kind: PriceAlertKind, threshold: Double, note: String?,
        requestKey: String? = nil
    ) async throws -> PriceAlert {
        let id =
            requestKey.map { "alt_" + Digest.hex(Digest.sha256(Array("\(userId):\($0)".utf8))).prefix(32) }
            ?? "alt_" + Digest.uuid().lowercased()
        _ = try await db.query(
            """
            INSERT INTO briefs.price_alerts (id, user_id, ticker, kind, threshold, note)
            VALUES (\(id), \(userId), \(ticker), \(kind.rawValue), \(threshold), \(note))
            ON CONFLICT (id) DO NOTHING
            """)
        let rows = try await db.query(
            "SELECT \(unescaped: Self.columns) FROM briefs.price_alerts WHERE id = \(id) AND user_id = \(userId)")
        guard let alert = rows.first.flatMap(Self.alert) else { throw WatchlistStore.StoreError.vanished }
        return alert
    }

    /// Newest first.
    func list(userId: String) async throws -> [PriceAlert] {
        try await db.query(
            """
            SELECT \(unescaped: Self.columns) FROM briefs.price_alerts
            WHERE user_id = \(userId) ORDER BY created_at DESC, id
            """
        ).compactMap(Self.alert)
    }

    func active(userId: String) async throws -> [PriceAlert] {
        try await db.query(
            """
            SELECT \(unescaped: Self.columns) FROM briefs.price_alerts
            WHERE user_id = \(userId) AND NOT disabled AND triggered_at IS NULL ORDER BY created_at DESC, id
            """
        ).compactMap(Self.alert)
    }

    /// True when the caller's alert existed and is gone.
    func delete(userId: String, id: String) async throws -> Bool {
        try await db.execute("DELETE FROM briefs.price_alerts WHERE user_id = \(userId) AND id = \(id)") > 0
    }

    /// Marks an active alert fired; nil when it was not active any more (fired by a concurrent check or
    /// deleted), so exactly one caller sees each alert fire.
    func markTriggered(userId: String, id: String) async throws -> PriceAlert? {
        try await db.query(
            """
            UPDATE briefs.price_alerts SET triggered_at = clock_timestamp()
            WHERE user_id = \(userId) AND id = \(id) AND triggered_at IS NULL AND NOT disabled
            RETURNING \(unescaped: Self.columns)
            """
        ).first.flatMap(Self.alert)
    }

    /// Users with at least one active alert, by id after `after`.
    func usersWithActiveAlerts(after: String, limit: Int) async throws -> [String] {
        try await db.query(
            """
            SELECT DISTINCT user_id FROM briefs.price_alerts
            WHERE NOT disabled AND triggered_at IS NULL AND user_id > \(after)
            ORDER BY user_id LIMIT \(limit)
            """
        ).compactMap { $0.string("user_id") }
    }
}
