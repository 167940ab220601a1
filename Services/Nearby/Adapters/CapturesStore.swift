import Contracts
import NearbyCore
import Postgres

/// Nearby's read model of the finds journal (schema `nearby`), fed by `mapvest.find.recorded` events: which brands
/// (and tickers) a user captured in which geohash-6 tile. Identify owns the journal; this is a projection of it.
public struct CapturesStore: Sendable {
    public static let migrations: [Migration] = [
        Migration(
            version: 1, name: "captures read model",
            sql: """
                CREATE TABLE IF NOT EXISTS nearby.captures (
                    find_id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL,
                    geohash6 TEXT NOT NULL,
                    brand_key TEXT NOT NULL,
                    ticker TEXT,
                    captured_at TIMESTAMPTZ NOT NULL
                );
                CREATE INDEX IF NOT EXISTS captures_user_tile_idx ON nearby.captures (user_id, geohash6);
                """)
    ]

    let db: PostgresPool

    public init(db: PostgresPool) { self.db = db }

    /// Creates the schema and table (replicas starting together apply it once).
    public static func migrate(_ db: PostgresPool) async throws {
        try await db.migrate(schema: "nearby", migrations: migrations)
    }

    /// Records one find (`CaptureRecord`); idempotent per find id. Returns false for a find without a tile or brand
    /// (it has no place on the map and is skipped).
    @discardableResult
    public func record(_ event: FindRecordedEvent) async throws -> Bool {
        guard let row = CaptureRecord(event) else { return false }
        let capture = row.capture
        _ = try await db.execute(
            """
            INSERT INTO nearby.captures (find_id, user_id, geohash6, brand_key, ticker, captured_at)
            VALUES (\(row.findId), \(row.userId), \(capture.tile), \(capture.brandKey), \(capture.ticker), \(row.capturedAt))
            ON CONFLICT (find_id) DO NOTHING
            """)
        return true
    }

    /// The user's captures in any of `tiles`.
    public func captures(userId: String, tiles: [String]) async throws -> [Capture] {
        guard !tiles.isEmpty else { return [] }
        let rows = try await db.query(
            """
            SELECT geohash6, brand_key, ticker FROM nearby.captures
            WHERE user_id = \(userId) AND geohash6 = ANY(\(Array(Set(tiles))))
            """)
        return rows.compactMap { row in
            guard let tile = row.string("geohash6"), let brandKey = row.string("brand_key") else { return nil }
            return Capture(tile: tile, brandKey: brandKey, ticker: row.string("ticker"))
        }
    }
}
