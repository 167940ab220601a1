import BriefsCore
import Contracts
import Foundation
import MarketData
import Messaging
import Runtime
import Synchronization

/// `POST /v1/backtest`: daily closes from Briefs' `MarketDataClient` (the same provider cascade and 30-minute
/// history cache the ticker page's quote-history uses), then `Backtest.compute`.
struct BacktestCommands: Sendable {
    let store: WatchlistStore
    let market: MarketDataClient

    func run(_ command: BacktestCommand) async throws -> Reply {
        var tickers = command.tickers ?? []
        if command.tickers == nil {
            guard let (_, entries) = try await store.listWithEntries(userId: command.userId, listId: command.listId)
            else {
                return .error(.listNotFound)
            }
            tickers = BacktestCommand.symbols(entries.map(\.ticker))
        }
        guard !tickers.isEmpty else { return .error(.tickersRequired) }
        let (market, period) = (self.market, command.period)
        // Bounded: histories not in by the cutoff count as missing, so unknown tickers (each walking the whole
        // provider cascade) cannot hold the answer past its budget.
        let cutoff = (TaskDeadline.current ?? .now + .seconds(10)) - Self.replyReserve
        let wanted = tickers + [Self.benchmark]
        let found = Histories(count: wanted.count)
        _ = await withTimeLimit(max(.zero, cutoff - .now)) {
            await withTaskGroup(of: Void.self) { group in
                for (index, ticker) in wanted.enumerated() {
                    group.addTask { found.set(index, await market.history(ticker, period: period)?.map(\.close)) }
                }
            }
        }
        var histories = found.values
        let spy = histories.removeLast()
        let closes = zip(tickers, histories).map { (ticker: $0, closes: $1 ?? []) }
        guard let result = Backtest.compute(closes, benchmark: spy, period: period, now: Date())
        else {
            return .error(502, "no price history for any ticker in this period")
        }
        return .json(200, result)
    }

    static let benchmark = "SPY"
    /// Kept back from the command's deadline to compute and send the answer.
    static let replyReserve = Duration.milliseconds(500)
}

/// The closes fetched so far, by ticker index; read once the fetch is over or cut off.
private final class Histories: Sendable {
    private let state: Mutex<[[Double]?]>

    init(count: Int) { state = Mutex(Array(repeating: nil, count: count)) }

    func set(_ index: Int, _ closes: [Double]?) { state.withLock { $0[index] = closes } }

    var values: [[Double]?] { state.withLock { $0 } }
}
