import Foundation
import IdentifyCore
import Postgres
import Runtime

/// The co-op XP pool, paid inside the transaction that records a find: when the journal shows a tile's threshold of
/// distinct finders inside one weekly cycle, the tile's first contributors (earliest find first, then user id) share
/// the pool through the award ledger. `identify.coop_uncovers` (migration 51) holds one row per tile and cycle, so a
/// tile uncovers once per cycle and later finders never join; each share's ledger key pays it at most once.
enum CoopPool {
    static let migrations: [Migration] = [
        Migration(
            version: 51, name: "co-op tile uncovers",
            sql: """
                CREATE TABLE IF NOT EXISTS identify.coop_uncovers (
                    tile TEXT NOT NULL,
                    cycle_start TIMESTAMPTZ NOT NULL,
                    contributors TEXT[] NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                    PRIMARY KEY (tile, cycle_start)
                );
                """)
    ]

    /// A find just inserted into the journal with a tile: the tile and the bounds of its weekly cycle.
    struct Capture: Sendable, Hashable {
        let tile: String
        let cycleStart: Date
        let cycleEnd: Date

        init(tile: String, createdAt: Date) {
            let cycle = WeeklyCycle.window(containing: createdAt)
            self.tile = tile
            (cycleStart, cycleEnd) = (cycle.start, cycle.end)
        }

        var lockKey: String { "mapvest.coop.\(tile).\(Timestamp.iso8601(cycleStart))" }
    }

    /// Pays the pool of every tile the captures uncover, after the captures are inserted and before the recording
    /// user's own progress is applied. Each tile and cycle is serialized by a transaction advisory lock (taken in key
    /// order), so of two finders committing at once the later one counts the earlier; the progress rows paid are
    /// then locked in user-id order (the recording user's among them), so two payouts never wait on each other.
    static func settle(on connection: PostgresConnection, userId: String, captures: [Capture]) async throws {
        var shares: [(userId: String, key: String, xp: Int)] = []
        for capture in Set(captures).sorted(by: { $0.lockKey < $1.lockKey }) {
            try await connection.execute("SELECT pg_advisory_xact_lock(hashtextextended(\(capture.lockKey), 0))")
            let contributors = try await connection.query(
                """
                SELECT user_id FROM identify.user_finds
                WHERE geohash6 = \(capture.tile) AND created_at > \(capture.cycleStart)
                    AND created_at <= \(capture.cycleEnd)
                GROUP BY user_id ORDER BY MIN(created_at), user_id LIMIT \(TerritoryRules.coopThreshold)
                """
            ).compactMap { $0.string("user_id") }
            guard contributors.count >= TerritoryRules.coopThreshold else { continue }
            let uncovered = try await connection.query(
                """
                INSERT INTO identify.coop_uncovers (tile, cycle_start, contributors)
                VALUES (\(capture.tile), \(capture.cycleStart), \(contributors))
                ON CONFLICT (tile, cycle_start) DO NOTHING RETURNING 1 AS uncovered
                """)
            guard !uncovered.isEmpty else { continue }
            shares += TerritoryRules.coopShares(contributors: contributors).map {
                (
                    $0.userId,
                    TerritoryRules.coopAwardKey(tile: capture.tile, cycleStart: capture.cycleStart, userId: $0.userId),
                    $0.xp
                )
            }
        }
        guard !shares.isEmpty else { return }
        for payee in Set(shares.map(\.userId) + [userId]).sorted() {
            try await connection.execute(
                "INSERT INTO identify.user_progress (user_id) VALUES (\(payee)) ON CONFLICT (user_id) DO NOTHING")
            guard
                var xp = try await connection.query(
                    "SELECT xp FROM identify.user_progress WHERE user_id = \(payee) FOR UPDATE"
                ).first?.int("xp")
            else { continue }
            var changed = false
            for share in shares where share.userId == payee {
                if try await ProgressStore.claim(on: connection, userId: payee, key: share.key, xp: share.xp) {
                    xp += share.xp
                    changed = true
                }
            }
            guard changed else { continue }
            try await connection.execute(
                """
                UPDATE identify.user_progress SET xp = \(xp), level = \(ProgressRules.level(xp: xp)), updated_at = now()
                WHERE user_id = \(payee)
                """)
        }
    }
}
