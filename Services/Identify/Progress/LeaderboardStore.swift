import Foundation
import IdentifyCore
import Postgres

/// Early-find scores for the weekly leaderboard, read from the progress ledger: the XP of `pioneer:` awards claimed
/// inside a cycle (nothing else counts). Its index is migration 21 of Identify's schema.
struct LeaderboardStore: Sendable {
    let db: PostgresPool

    static let migrations: [Migration] = [
        Migration(
            version: 21, name: "pioneer awards by time",
            sql: """
                CREATE INDEX IF NOT EXISTS progress_awards_pioneer_time_idx
                    ON identify.progress_awards (created_at) WHERE award_key LIKE 'pioneer:%';
                """)
    ]

    /// User id → pioneer XP claimed in `(start, end]`.
    func pioneerScores(in cycle: WeeklyCycle.Window) async throws -> [String: Int] {
        let rows = try await db.query(
            """
            SELECT user_id, SUM(xp)::bigint AS score FROM identify.progress_awards
            WHERE award_key LIKE 'pioneer:%' AND created_at > \(cycle.start) AND created_at <= \(cycle.end)
            GROUP BY user_id
            """)
        var scores: [String: Int] = [:]
        for row in rows {
            if let user = row.string("user_id"), let score = row.int("score") { scores[user] = score }
        }
        return scores
    }
}
