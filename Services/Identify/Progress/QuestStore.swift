import Foundation
import IdentifyCore
import Postgres

/// Quest state read from the finds journal, and quest awards paid through the progress ledger
/// (`identify.progress_awards`): nothing of its own is stored, since a quest set is a function of the user and the day.
struct QuestStore: Sendable {
    let db: PostgresPool
    /// The most journal rows a quest evaluation reads (oldest first), far above a real journal.
    static let journalLimit = 5000

    /// The user's journal as the quest rules read it.
    func journal(userId: String) async throws -> [QuestFind] {
        Self.journal(try await db.query(Self.journalQuery(userId: userId)))
    }

    /// XP the ledger holds under keys starting `prefix` (`quest:<day>:` for a day's quests).
    func xpGranted(userId: String, prefix: String) async throws -> Int {
        let rows = try await db.query(
            """
            SELECT COALESCE(SUM(xp), 0)::bigint AS total FROM identify.progress_awards
            WHERE user_id = \(userId) AND starts_with(award_key, \(prefix))
            """)
        return rows.first?.int("total") ?? 0
    }

    /// Pays the quests a find caught at `caughtAt` completed, each once: in one transaction the user's progress row
    /// is locked (as recording a find does), the journal read, and each due award claimed in the ledger before its XP
    /// is added. Returns the XP added (0 on a redelivery).
    @discardableResult
    func award(userId: String, caughtAt: Date, now: Date) async throws -> Int {
        try await db.transaction { connection in
            try await connection.execute(
                "INSERT INTO identify.user_progress (user_id) VALUES (\(userId)) ON CONFLICT (user_id) DO NOTHING")
            guard
                let row = try await connection.query(
                    "SELECT xp FROM identify.user_progress WHERE user_id = \(userId) FOR UPDATE"
                ).first
            else { return 0 }
            let journal = Self.journal(try await connection.query(Self.journalQuery(userId: userId)))
            var added = 0
            for award in QuestRules.dueAwards(userId: userId, caughtAt: caughtAt, now: now, journal: journal) {
                if try await ProgressStore.claim(on: connection, userId: userId, key: award.key, xp: award.xp) {
                    added += award.xp
                }
            }
            guard added > 0 else { return 0 }
            let xp = (row.int("xp") ?? 0) + added
            try await connection.execute(
                """
                UPDATE identify.user_progress SET xp = \(xp), level = \(ProgressRules.level(xp: xp)), updated_at = now()
                WHERE user_id = \(userId)
                """)
            return added
        }
    }

    private static func journalQuery(userId: String) -> PostgresQuery {
        """
        SELECT EXTRACT(EPOCH FROM created_at)::float8 AS created_epoch, ticker, comparable, is_public, geohash6
        FROM identify.user_finds WHERE user_id = \(userId) ORDER BY created_at LIMIT \(journalLimit)
        """
    }

    private static func journal(_ rows: [PostgresRow]) -> [QuestFind] {
        rows.compactMap { row in
            guard let epoch = row.double("created_epoch") else { return nil }
            return QuestFind(
                createdAt: Date(timeIntervalSince1970: epoch), ticker: row.string("ticker"),
                comparable: row.string("comparable"), isPublic: row.bool("is_public"), tile: row.string("geohash6"))
        }
    }
}
