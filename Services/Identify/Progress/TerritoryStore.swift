import Foundation
import IdentifyCore
import Postgres

/// The caller's side of a tile's territory, read from the finds journal: the distinct (ticker, comparable) pairs of
/// every find, whether any find with coordinates lies in the tile, and how many distinct finders caught there in a
/// weekly cycle. Nothing of its own is stored; its index is migration 22 of Identify's schema.
struct TerritoryStore: Sendable {
    let db: PostgresPool

    static let migrations: [Migration] = [
        Migration(
            version: 22, name: "finds by tile and time",
            sql: """
                CREATE INDEX IF NOT EXISTS user_finds_tile_time_idx ON identify.user_finds (geohash6, created_at)
                    WHERE geohash6 IS NOT NULL;
                """)
    ]

    /// The distinct ticker and comparable pairs of the user's finds.
    func findTickers(userId: String) async throws -> [(ticker: String?, comparable: String?)] {
        try await db.query(
            "SELECT DISTINCT ticker, comparable FROM identify.user_finds WHERE user_id = \(userId)"
        ).map { (ticker: $0.string("ticker"), comparable: $0.string("comparable")) }
    }

    /// Whether the user has a find in `tile`.
    func hasFind(userId: String, tile: String) async throws -> Bool {
        try await !db.query(
            "SELECT 1 AS one FROM identify.user_finds WHERE user_id = \(userId) AND geohash6 = \(tile) LIMIT 1"
        ).isEmpty
    }

    /// Distinct users with a find in `tile` inside `(start, end]` of the cycle.
    func distinctFinders(tile: String, in cycle: WeeklyCycle.Window) async throws -> Int {
        try await db.query(
            """
            SELECT COUNT(DISTINCT user_id)::bigint AS finders FROM identify.user_finds
            WHERE geohash6 = \(tile) AND created_at > \(cycle.start) AND created_at <= \(cycle.end)
            """
        ).first?.int("finders") ?? 0
    }
}
