import Contracts
import Foundation
import IdentifyCore
import Messaging
import Runtime

/// Play beside the XP ledger: `GET /v1/quests` and `GET /v1/quests/weekly`, evaluated from the journal on read (the XP
/// is paid by the `find.recorded` consumer, `award`, never on a client's word), `GET /v1/events/current` and the
/// weekly leaderboard's ranking, and the caller's side of a tile's territory.
struct PlayCommands: Sendable {
    let store: QuestStore
    let leaderboard: LeaderboardStore
    let territory: TerritoryStore
    let clock: @Sendable () -> Date

    func daily(_ command: QuestsCommand) async throws -> Reply {
        let day = ProgressRules.day(clock())
        let quests = QuestRules.dailyQuests(
            userId: command.userId, day: day, journal: try await store.journal(userId: command.userId))
        let granted = try await store.xpGranted(userId: command.userId, prefix: "quest:\(day):")
        return .json(200, QuestsResponse(quests: quests, day: day, xpGrantedToday: granted))
    }

    func weekly(_ command: WeeklyQuestsCommand) async throws -> Reply {
        let cycle = WeeklyCycle.window(containing: clock())
        let quests = QuestRules.weeklyQuests(cycle: cycle, journal: try await store.journal(userId: command.userId))
        return .json(
            200,
            WeeklyQuestsResponse(
                cycleStart: Timestamp.iso8601(cycle.start), cycleEnd: Timestamp.iso8601(cycle.end), quests: quests))
    }

    /// The weekly leaderboard's ranking by user id (the gateway shows handles instead).
    func weeklyScores(_ command: WeeklyScoresCommand) async throws -> Reply {
        let cycle = WeeklyCycle.window(containing: clock())
        let ranked = LeaderboardRules.rank(
            scores: try await leaderboard.pioneerScores(in: cycle), caller: command.userId, limit: command.limit)
        return .json(
            200,
            WeeklyScores(
                cycleStart: Timestamp.iso8601(cycle.start), cycleEnd: Timestamp.iso8601(cycle.end), top: ranked.top,
                caller: ranked.caller))
    }

    /// The caller's finds against a tile's tickers, the pioneer flag and the tile's co-op state this cycle.
    func territoryFinds(_ command: TerritoryFindsCommand) async throws -> Reply {
        let tile = command.tile.lowercased()
        async let tickers = territory.findTickers(userId: command.userId)
        async let inTile = territory.hasFind(userId: command.userId, tile: tile)
        async let finders = territory.distinctFinders(tile: tile, in: WeeklyCycle.window(containing: clock()))
        let completion = TerritoryRules.completion(tileTickers: command.tickers, findTickers: try await tickers)
        return .json(
            200,
            TerritoryFinds(
                investablesTotal: completion.investablesTotal, found: completion.found, pioneer: !(try await inTile),
                coop: TerritoryRules.coop(distinctFinders: try await finders)))
    }

    /// The XP event open now; the same for everyone, so shared caches may keep it a minute.
    func currentEvent() -> Reply {
        .json(
            200, EventsResponse(active: XPEvents.active(at: clock())),
            headers: [("Cache-Control", "public, max-age=60, stale-while-revalidate=300")])
    }

    /// Applies one `find.recorded` event: pays the quests its find completed (idempotent through the ledger).
    func award(_ event: FindRecordedEvent) async throws {
        let now = clock()
        try await store.award(userId: event.userId, caughtAt: Timestamp.parse(event.createdAt) ?? now, now: now)
    }
}
