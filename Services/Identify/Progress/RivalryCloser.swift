import Contracts
import Foundation
import IdentifyCore
import MarketData
import Messaging
import Runtime
import ServiceKit

/// `rivalries.close.v1`, published by the scheduler at Saturday 12:00 UTC (each slot once across replicas): closes
/// every round opened in the week of the slot. Each distinct ticker's week comes from market data once per run; a
/// round with either side missing is skipped (not scored, not recorded, not pushed), never filled in. Rounds close
/// one transaction each (`RivalryCloseStore`), so a second run of the same week closes nothing twice.
struct RivalryCloser: Sendable {
    let store: RivalryCloseStore
    let market: MarketDataClient
    let outbox: Outbox
    let logger: Logger
    /// Market lookups at once.
    var concurrency = 8
    /// A pause after each closed round (`RIVALRY_CLOSE_PACE_MS`, dev and tests only), so a test can kill the replica
    /// while the close runs.
    var pace: Duration = .zero

    /// What one run did (the command's reply; also logged).
    struct Summary: Codable, Sendable, Equatable {
        var weekStart: String
        var scanned: Int
        var closed: Int
        var skippedNoData: Int
    }

    /// Closes the rounds of the week holding `instant` (the scheduled slot, else now).
    func close(at instant: Date, deadline: ContinuousClock.Instant) async throws -> Reply {
        let closingWeek = RivalryRules.weekStart(instant)
        let nextWeek = RivalryRules.nextWeekStart(instant)
        let rounds = try await store.open(closingWeek: closingWeek)
        logger.info("rivalry close started", [LogKeys.slot: .string(closingWeek)])
        let changes = await weeklyChanges(Set(rounds.flatMap { [$0.rivalry.ticker, $0.rivalry.rivalTicker] }))
        var summary = Summary(weekStart: closingWeek, scanned: rounds.count, closed: 0, skippedNoData: 0)
        var staged: [OutboxEntry] = []
        for round in rounds {
            guard let tickerPct = changes[round.rivalry.ticker], let rivalPct = changes[round.rivalry.rivalTicker],
                let scored = RivalryClose.outcome(tickerPct: tickerPct, rivalPct: rivalPct)
            else {
                summary.skippedNoData += 1
                continue
            }
            if let entry = try await store.close(
                round, outcome: scored.outcome, diffPp: scored.diffPp, closingWeek: closingWeek, nextWeek: nextWeek)
            {
                staged.append(entry)
                summary.closed += 1
                if pace > .zero { try await Task.sleep(for: pace) }
            }
        }
        await outbox.relay(staged, deadline: deadline)
        logger.info(
            "rivalry rounds closed",
            [
                LogKeys.slot: .string(closingWeek), LogKeys.pushMessages: .int(summary.closed),
                LogKeys.pushSkipped: .int(summary.skippedNoData),
            ])
        return .json(200, summary)
    }

    /// Each symbol's change over the last five sessions of a month of daily closes; absent when unknown.
    private func weeklyChanges(_ symbols: Set<String>) async -> [String: Double] {
        let market = self.market
        return await withTaskGroup(of: (String, Double?).self) { group in
            var pending = symbols.sorted().makeIterator()
            for _ in 0..<max(1, concurrency) {
                guard let symbol = pending.next() else { break }
                group.addTask { (symbol, await Self.weeklyChange(symbol, market: market)) }
            }
            var changes: [String: Double] = [:]
            for await (symbol, change) in group {
                changes[symbol] = change
                if let symbol = pending.next() {
                    group.addTask { (symbol, await Self.weeklyChange(symbol, market: market)) }
                }
            }
            return changes
        }
    }

    private static func weeklyChange(_ symbol: String, market: MarketDataClient) async -> Double? {
        guard let history = await market.history(symbol, period: .oneMonth, interval: .oneDay) else { return nil }
        return RivalryClose.weeklyChangePct(closes: history.map(\.close))
    }
}
