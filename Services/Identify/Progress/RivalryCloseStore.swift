import Contracts
import Foundation
import IdentifyCore
import Postgres
import ServiceKit

/// The weekly close's reads and writes in Identify's schema. A round closes in one transaction that advances the row
/// only from the week it was read in (so a second run, a redelivered command or another replica closes nothing
/// twice), pays a right pick through the progress ledger, and stages the close's push in the outbox.
struct RivalryCloseStore: Sendable {
    let db: PostgresPool
    let outbox: Outbox

    /// One open round as the close reads it.
    struct Round: Sendable {
        let userId: String
        let rivalry: Rivalry
    }

    /// Rounds opened in `closingWeek` or before (oldest rivalries first), at most `RivalryClose.maxPerRun`.
    func open(closingWeek: String) async throws -> [Round] {
        try await db.query(
            """
            SELECT user_id, id::text AS id, ticker, rival_ticker, wins, losses, draws, current_pick, week_start,
                EXTRACT(EPOCH FROM created_at)::float8 AS created_epoch
            FROM identify.user_rivalries WHERE week_start <= \(closingWeek)
            ORDER BY created_at, id LIMIT \(RivalryClose.maxPerRun)
            """
        ).compactMap { row in
            guard let userId = row.string("user_id"), let rivalry = RivalryStore.rivalry(row) else { return nil }
            return Round(userId: userId, rivalry: rivalry)
        }
    }

    /// Closes `round` with `outcome` unless it has moved on since it was read: records the result, opens the round
    /// of `nextWeek` with no pick, pays the pick XP once under `rivalry:<id>:<closingWeek>` when the pick read at
    /// close was right, and stages the push. Returns the staged entry (to relay after COMMIT), nil when already closed.
    func close(
        _ round: Round, outcome: RivalryClose.Outcome, diffPp: Double, closingWeek: String, nextWeek: String
    ) async throws -> OutboxEntry? {
        let (userId, id) = (round.userId, round.rivalry.id)
        let outbox = self.outbox
        return try await db.transaction { connection in
            try await connection.execute(
                "INSERT INTO identify.user_progress (user_id) VALUES (\(userId)) ON CONFLICT (user_id) DO NOTHING")
            guard
                let progress = try await connection.query(
                    "SELECT xp FROM identify.user_progress WHERE user_id = \(userId) FOR UPDATE"
                ).first,
                let current = try await connection.query(
                    """
                    SELECT current_pick FROM identify.user_rivalries
                    WHERE id = \(id)::uuid AND week_start = \(round.rivalry.weekStart) FOR UPDATE
                    """
                ).first
            else { return nil }
            let pick = current.string("current_pick").flatMap(RivalryPick.init(rawValue:))
            guard
                let closedRow = try await connection.query(
                    """
                    UPDATE identify.user_rivalries
                    SET wins = wins + \(outcome == .win ? 1 : 0), losses = losses + \(outcome == .loss ? 1 : 0),
                        draws = draws + \(outcome == .draw ? 1 : 0), current_pick = NULL, week_start = \(nextWeek)
                    WHERE id = \(id)::uuid
                    RETURNING id::text AS id, ticker, rival_ticker, wins, losses, draws, current_pick, week_start,
                        EXTRACT(EPOCH FROM created_at)::float8 AS created_epoch
                    """
                ).first, let closed = RivalryStore.rivalry(closedRow)
            else { return nil }
            if RivalryClose.pickWasRight(pick, outcome),
                try await ProgressStore.claim(
                    on: connection, userId: userId,
                    key: RivalryClose.awardKey(rivalryId: id, weekStart: closingWeek), xp: RivalryClose.pickXP)
            {
                let xp = (progress.int("xp") ?? 0) + RivalryClose.pickXP
                try await connection.execute(
                    """
                    UPDATE identify.user_progress SET xp = \(xp), level = \(ProgressRules.level(xp: xp)), updated_at = now()
                    WHERE user_id = \(userId)
                    """)
            }
            let push = RivalryClose.push(
                userId: userId, closed: closed, outcome: outcome, diffPp: diffPp, weekStart: closingWeek)
            let entry = OutboxEntry(
                id: push.id, topic: Topics.pushRequests, key: userId, value: Array(try JSONEncoder().encode(push)))
            try await outbox.stage(entry, on: connection)
            return entry
        }
    }
}
