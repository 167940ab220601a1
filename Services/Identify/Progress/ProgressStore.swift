import Contracts
import Finance
import Foundation
import IdentifyCore
import Postgres
import Runtime

/// One recorded find's claim on progression: the streak/XP bump under `key` (unique per delivery of a find, so a
/// redelivered command claims nothing new; doubled in its sector's Sector Saturday), and the pioneer award of its tile.
struct FindAward: Sendable, Equatable {
    let key: String
    /// The UTC day the find counts for (`YYYY-MM-DD`).
    let day: String
    let tile: String?
    /// The find's canonical seed sector, which an open XP event may multiply.
    let sector: String?
}

/// Progression (`identify.user_progress`) and its award ledger (`identify.progress_awards`, one row per user and
/// award key under a primary key): every XP award claims its key first, in the same transaction that records the
/// find and updates the progress row, so an award lands exactly once however often a command is delivered.
struct ProgressStore: Sendable {
    let db: PostgresPool

    /// Versions 20+ in Identify's schema (the finds journal uses the low numbers).
    static let migrations: [Migration] = [
        Migration(
            version: 20, name: "user progress and award ledger",
            sql: """
                CREATE TABLE IF NOT EXISTS identify.user_progress (
                    user_id TEXT PRIMARY KEY,
                    xp INTEGER NOT NULL DEFAULT 0,
                    level INTEGER NOT NULL DEFAULT 1,
                    streak_days INTEGER NOT NULL DEFAULT 0,
                    streak_freezes INTEGER NOT NULL DEFAULT 0,
                    last_find_day TEXT,
                    badges TEXT[] NOT NULL DEFAULT '{}',
                    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
                );
                CREATE TABLE IF NOT EXISTS identify.progress_awards (
                    user_id TEXT NOT NULL,
                    award_key TEXT NOT NULL,
                    xp INTEGER NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                    PRIMARY KEY (user_id, award_key)
                );
                """)
    ]

    /// The user's progression, or the zero row before their first find.
    func progress(userId: String) async throws -> UserProgress {
        let rows = try await db.query(
            """
            SELECT xp, level, streak_days, streak_freezes, last_find_day, badges,
                   to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_iso
            FROM identify.user_progress WHERE user_id = \(userId)
            """)
        guard let row = rows.first else {
            return UserProgress(
                xp: 0, level: 1, streakDays: 0, streakFreezes: 0, lastFindDay: nil, badges: [],
                updatedAt: Timestamp.iso8601(Date(timeIntervalSince1970: 0)))
        }
        return UserProgress(
            xp: row.int("xp") ?? 0, level: row.int("level") ?? 1, streakDays: row.int("streak_days") ?? 0,
            streakFreezes: row.int("streak_freezes") ?? 0, lastFindDay: row.string("last_find_day"),
            badges: row.stringArray("badges") ?? [], updatedAt: row.string("updated_iso") ?? "")
    }

    /// Applies `awards` and any newly completed dex sector (badge `sector:<name>` + 50 XP) inside the caller's
    /// transaction, after its finds are inserted. The progress row is locked first, so concurrent finds of one
    /// user apply one after the other.
    static func apply(on connection: PostgresConnection, userId: String, awards: [FindAward]) async throws {
        try await connection.execute(
            "INSERT INTO identify.user_progress (user_id) VALUES (\(userId)) ON CONFLICT (user_id) DO NOTHING")
        guard
            let row = try await connection.query(
                """
                SELECT xp, streak_days, streak_freezes, last_find_day, badges FROM identify.user_progress
                WHERE user_id = \(userId) FOR UPDATE
                """
            ).first
        else { return }
        var xp = row.int("xp") ?? 0
        var streak = ProgressRules.Streak(
            days: row.int("streak_days") ?? 0, freezes: row.int("streak_freezes") ?? 0,
            lastDay: row.string("last_find_day"))
        var badges = row.stringArray("badges") ?? []
        var changed = false
        // An XP event open now (Sector Saturday) multiplies the find XP of its sector.
        let event = XPEvents.active(at: Date())
        for award in awards {
            let findXP = ProgressRules.xpPerFind * XPEvents.multiplier(sector: award.sector, event: event)
            if try await claim(on: connection, userId: userId, key: "find:\(award.key)", xp: findXP) {
                xp += findXP
                streak = ProgressRules.afterFind(streak, day: award.day)
                changed = true
            }
            if let tile = award.tile,
                try await claim(on: connection, userId: userId, key: "pioneer:\(tile)", xp: ProgressRules.pioneerXP)
            {
                xp += ProgressRules.pioneerXP
                changed = true
            }
        }
        for sector in try await completedSectors(on: connection, userId: userId) {
            let badge = "sector:\(sector)"
            if try await claim(on: connection, userId: userId, key: "badge:\(badge)", xp: ProgressRules.sectorBadgeXP) {
                xp += ProgressRules.sectorBadgeXP
                if !badges.contains(badge) { badges.append(badge) }
                changed = true
            }
        }
        guard changed else { return }
        try await connection.execute(
            """
            UPDATE identify.user_progress SET xp = \(xp), level = \(ProgressRules.level(xp: xp)),
                streak_days = \(streak.days), streak_freezes = \(streak.freezes), last_find_day = \(streak.lastDay),
                badges = \(badges), updated_at = now()
            WHERE user_id = \(userId)
            """)
    }

    /// Claims `key` in the ledger; true only for the first claim.
    static func claim(on connection: PostgresConnection, userId: String, key: String, xp: Int) async throws
        -> Bool
    {
        try await !connection.query(
            """
            INSERT INTO identify.progress_awards (user_id, award_key, xp) VALUES (\(userId), \(key), \(xp))
            ON CONFLICT (user_id, award_key) DO NOTHING RETURNING 1 AS claimed
            """
        ).isEmpty
    }

    /// Dex sectors the user's journal (up to 2000 rows) completes (`found ≥ total`, as `GET /v1/dex` counts them).
    private static func completedSectors(on connection: PostgresConnection, userId: String) async throws -> [String] {
        let rows = try await connection.query(
            "SELECT ticker, comparable FROM identify.user_finds WHERE user_id = \(userId) LIMIT 2000")
        let tickers = rows.compactMap {
            RarityClassifier.effectiveTicker(ticker: $0.string("ticker"), comparable: $0.string("comparable"))
        }
        return DexSectors.completed(DexSectors.compute(effectiveTickers: tickers))
    }
}
