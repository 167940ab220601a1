import BriefsCore
import Contracts
import Foundation
import Postgres

/// Briefs' read model of each user's finds (`briefs.user_finds`), fed by `mapvest.find.recorded` events in Briefs'
/// own consumer group: what uncaught-nearby needs (owned tickers, sectors, tiles) and what find evolution needs
/// (found price, brand, tile). Identify owns the journal; the journal has no delete (no route or event removes a
/// find), so neither has this projection. Writes are idempotent by find id; a redelivered event changes nothing.
struct FindsReadModel: Sendable {
    static let groupId = "mapvest.briefs.finds-read-model"
    static let maxPerUser = 200

    /// Version 103: clear of the watchlist (1…), alerts and memos (20, 21) and the local-brief (101, 102) ranges.
    static let migrations: [Migration] = [
        Migration(
            version: 103, name: "finds read model",
            sql: """
                CREATE TABLE IF NOT EXISTS briefs.user_finds (
                    find_id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL,
                    brand TEXT NOT NULL,
                    ticker TEXT,
                    comparable TEXT,
                    is_public BOOLEAN,
                    sector TEXT,
                    geohash6 TEXT,
                    found_price DOUBLE PRECISION,
                    found_at TIMESTAMPTZ NOT NULL
                );
                CREATE INDEX IF NOT EXISTS user_finds_user_idx ON briefs.user_finds (user_id, found_at DESC);
                CREATE INDEX IF NOT EXISTS user_finds_priced_idx ON briefs.user_finds (user_id) WHERE found_price > 0;
                """)
    ]

    typealias Row = FindRow

    let db: PostgresPool

    /// Stores one event's find (the effective ticker upper-cased, its seed sector when the seed lists it).
    func record(_ event: FindRecordedEvent) async throws {
        let find = RecordedFind(event, now: Date())
        try await db.execute(
            """
            INSERT INTO briefs.user_finds
                (find_id, user_id, brand, ticker, comparable, is_public, sector, geohash6, found_price, found_at)
            VALUES (\(event.findId), \(event.userId), \(event.brand), \(find.ticker), \(event.comparable),
                    \(event.isPublic), \(find.sector), \(find.geohash6), \(find.foundPrice), \(find.foundAt))
            ON CONFLICT (find_id) DO NOTHING
            """)
    }

    /// The user's newest finds (at most 200).
    func finds(userId: String) async throws -> [Row] {
        try await db.query(
            """
            SELECT find_id, brand, ticker, sector, geohash6, found_price FROM briefs.user_finds
            WHERE user_id = \(userId) ORDER BY found_at DESC, find_id LIMIT \(Self.maxPerUser)
            """
        ).compactMap(Self.row)
    }

    /// The user's newest finds with a found price and a symbol (at most 200).
    func pricedFinds(userId: String) async throws -> [Row] {
        try await db.query(
            """
            SELECT find_id, brand, ticker, sector, geohash6, found_price FROM briefs.user_finds
            WHERE user_id = \(userId) AND found_price > 0 AND ticker IS NOT NULL
            ORDER BY found_at DESC, find_id LIMIT \(Self.maxPerUser)
            """
        ).compactMap(Self.row)
    }

    /// A page of users with priced finds, in id order after `after`.
    func usersWithPricedFinds(after: String, limit: Int) async throws -> [String] {
        try await db.query(
            """
            SELECT DISTINCT user_id FROM briefs.user_finds
            WHERE found_price > 0 AND ticker IS NOT NULL AND user_id > \(after) ORDER BY user_id LIMIT \(limit)
            """
        ).compactMap { $0.string("user_id") }
    }

    private static func row(_ row: PostgresRow) -> Row? {
        guard let id = row.string("find_id"), let brand = row.string("brand") else { return nil }
        return Row(
            findId: id, brand: brand, ticker: row.string("ticker"), sector: row.string("sector"),
            geohash6: row.string("geohash6"), foundPrice: row.double("found_price"))
    }
}
