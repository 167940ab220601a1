import BriefsCore
import Contracts
import Foundation
import MarketData
import Messaging

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
        async let spy = market.history("SPY", period: period)
        let histories = await withTaskGroup(of: (Int, [Double]?).self) { group in
            for (index, ticker) in tickers.enumerated() {
                group.addTask { (index, await market.history(ticker, period: period)?.map(\.close)) }
            }
            var found = [[Double]?](repeating: nil, count: tickers.count)
            for await (index, closes) in group { found[index] = closes }
            return found
        }
        let closes = zip(tickers, histories).map { (ticker: $0, closes: $1 ?? []) }
        guard let result = Backtest.compute(closes, benchmark: await spy?.map(\.close), period: period, now: Date())
        else {
            return .error(502, "no price history for any ticker in this period")
        }
        return .json(200, result)
    }
}
