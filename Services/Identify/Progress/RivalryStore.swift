import Contracts
import Foundation
import IdentifyCore
import Postgres
import Runtime

/// Rivalries in Identify's schema (`identify.user_rivalries`, migration 23): tickers only, one row per user and
/// pairing. Every read and write is scoped to its owner, so another user's id behaves as no id at all.
struct RivalryStore: Sendable {
    let db: PostgresPool

    /// What a create did.
    enum Created: Sendable, Equatable {
        case created
        case duplicate(id: String)
        case ownRival
        case tooMany
    }

    static let migrations: [Migration] = [
        Migration(
            version: 23, name: "rivalries",
            sql: """
                CREATE TABLE IF NOT EXISTS identify.user_rivalries (
                    id UUID PRIMARY KEY,
                    user_id TEXT NOT NULL,
                    ticker TEXT NOT NULL,
                    rival_ticker TEXT NOT NULL,
                    wins INT NOT NULL DEFAULT 0,
                    losses INT NOT NULL DEFAULT 0,
                    draws INT NOT NULL DEFAULT 0,
                    current_pick TEXT,
                    week_start TEXT NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                    UNIQUE (user_id, ticker, rival_ticker)
                );
                CREATE INDEX IF NOT EXISTS user_rivalries_user_idx ON identify.user_rivalries (user_id, created_at DESC);
                """)
    ]

    private static let columns =
        "id::text AS id, ticker, rival_ticker, wins, losses, draws, current_pick, week_start, EXTRACT(EPOCH FROM created_at)::float8 AS created_epoch"

    /// The user's rivalries, newest first.
    func list(userId: String) async throws -> [Rivalry] {
        try await db.query(
            """
            SELECT \(unescaped: Self.columns) FROM identify.user_rivalries
            WHERE user_id = \(userId) ORDER BY created_at DESC, id
            """
        ).compactMap(Self.rivalry)
    }

    /// Creates the pairing unless it is a self-matchup, exists already, or the user holds the most allowed. The
    /// user's progress row is locked first (as recording a find does), so two creates cannot both pass the cap.
    func create(userId: String, ticker: String, rival: String, now: Date) async throws -> Created {
        guard ticker != rival else { return .ownRival }
        return try await db.transaction { connection in
            try await connection.execute(
                "INSERT INTO identify.user_progress (user_id) VALUES (\(userId)) ON CONFLICT (user_id) DO NOTHING")
            _ = try await connection.query(
                "SELECT 1 AS one FROM identify.user_progress WHERE user_id = \(userId) FOR UPDATE")
            let existing = try await connection.query(
                "SELECT id::text AS id, ticker, rival_ticker FROM identify.user_rivalries WHERE user_id = \(userId)")
            if let same = existing.first(where: {
                $0.string("ticker") == ticker && $0.string("rival_ticker") == rival
            }), let id = same.string("id") {
                return .duplicate(id: id)
            }
            guard existing.count < RivalryRules.maxPerUser else { return .tooMany }
            try await connection.execute(
                """
                INSERT INTO identify.user_rivalries (id, user_id, ticker, rival_ticker, week_start, created_at)
                VALUES (\(UUID().uuidString.lowercased())::uuid, \(userId), \(ticker), \(rival),
                    \(RivalryRules.weekStart(now)), \(now))
                """)
            return .created
        }
    }

    /// Registers or clears the pick of the user's rivalry; false when the id is not one of theirs.
    func setPick(userId: String, id: String, pick: RivalryPick?) async throws -> Bool {
        guard let id = Self.uuid(id) else { return false }
        return try await db.execute(
            """
            UPDATE identify.user_rivalries SET current_pick = \(pick?.rawValue)
            WHERE id = \(id)::uuid AND user_id = \(userId)
            """) > 0
    }

    /// Deletes the user's rivalry; false when the id is not one of theirs.
    func delete(userId: String, id: String) async throws -> Bool {
        guard let id = Self.uuid(id) else { return false }
        return try await db.execute(
            "DELETE FROM identify.user_rivalries WHERE id = \(id)::uuid AND user_id = \(userId)") > 0
    }

    /// The id in canonical form, or nil when it is not a UUID (so it names no row).
    static func uuid(_ id: String) -> String? { UUID(uuidString: id).map { $0.uuidString.lowercased() } }

    static func rivalry(_ row: PostgresRow) -> Rivalry? {
        guard let id = row.string("id"), let ticker = row.string("ticker"), let rival = row.string("rival_ticker"),
            let weekStart = row.string("week_start"), let created = row.double("created_epoch")
        else { return nil }
        return Rivalry(
            id: id, ticker: ticker, rivalTicker: rival, wins: row.int("wins") ?? 0, losses: row.int("losses") ?? 0,
            draws: row.int("draws") ?? 0, currentPick: row.string("current_pick").flatMap(RivalryPick.init(rawValue:)),
            weekStart: weekStart, createdAt: Timestamp.iso8601(Date(timeIntervalSince1970: created)))
    }
}
