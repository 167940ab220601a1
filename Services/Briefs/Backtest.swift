import Contracts
import Foundation
import MarketData
import Messaging
import Runtime

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
                return .error(404, "list not found")
            }
            tickers = BacktestCommand.symbols(entries.map(\.ticker))
        }
        guard !tickers.isEmpty else { return .error(400, "tickers required (non-empty array of symbols)") }
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

/// The backtest arithmetic, as the original defined it: every usable series (at least two positive closes) is
/// tail-aligned to the shortest one and normalised to 1.0 at its start; the basket is their arithmetic mean
/// (equal weight, no rebalancing); the benchmark is tail-aligned the same way, or flat when missing.
enum Backtest {
    static let sparklinePoints = 20

    static func compute(
        _ histories: [(ticker: String, closes: [Double])], benchmark: [Double]?, period: PricePeriod, now: Date
    ) -> BacktestResponse? {
        let usable = histories.filter { $0.closes.count >= 2 && $0.closes.allSatisfy { $0.isFinite && $0 > 0 } }
        let omitted = histories.filter { h in !usable.contains { $0.ticker == h.ticker } }.map(\.ticker)
        guard let length = usable.map(\.closes.count).min() else { return nil }
        let aligned = usable.map { (ticker: $0.ticker, series: normalised(Array($0.closes.suffix(length)))) }
        let basket = (0..<length).map { i in aligned.reduce(0) { $0 + $1.series[i] } / Double(aligned.count) }
        let totalReturn = (basket.last ?? 1) - 1
        let contributors = aligned.map {
            BacktestResponse.Contributor(ticker: $0.ticker, return: ($0.series.last ?? 1) - 1)
        }
        let ranked = contributors.sorted { $0.return > $1.return }
        var benchmarkSeries = basket.map { _ in 1.0 }
        if let benchmark, benchmark.count >= 2, benchmark.allSatisfy({ $0.isFinite && $0 > 0 }) {
            benchmarkSeries = normalised(Array(benchmark.suffix(length)))
        }
        let benchmarkReturn = (benchmarkSeries.last ?? 1) - 1
        guard let best = ranked.first, let worst = ranked.last else { return nil }
        return BacktestResponse(
            period: period, totalReturn: totalReturn, benchmarkReturn: benchmarkReturn,
            spread: totalReturn - benchmarkReturn,
            best: best, worst: worst, series: resample(basket, to: sparklinePoints),
            benchmarkSeries: resample(benchmarkSeries, to: sparklinePoints), omitted: omitted,
            generatedAt: Timestamp.iso8601(now))
    }

    static func normalised(_ closes: [Double]) -> [Double] {
        guard let base = closes.first, base > 0 else { return closes.map { _ in 1 } }
        return closes.map { $0 / base }
    }

    /// Nearest-index resampling to `count` points (first and last kept); shorter series are returned whole.
    static func resample(_ values: [Double], to count: Int) -> [Double] {
        guard values.count > count, count > 1 else { return values }
        return (0..<count).map { values[$0 * (values.count - 1) / (count - 1)] }
    }
}
