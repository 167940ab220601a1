import BriefsCore
import Contracts
import Foundation
import Testing

/// The backtest over a fixed synthetic history, checked against returns computed by hand.
@Suite struct BacktestUnitTests {
    @Test func equalWeightBasketAgainstSPYOnTheCommonWindow() throws {
        // The common window is the last 4 closes (A's length). A: 10 → 15 = +50 %. B's last four: 18 → 22 = +2/9.
        // Basket: (0.5 + 2/9) / 2 = 13/36. SPY's last four: 101 → 110 = +9/101. C has one close: omitted.
        let result = try #require(
            Backtest.compute(
                [
                    (ticker: "A", closes: [10, 11, 12, 15]), (ticker: "B", closes: [20, 20, 18, 16, 20, 22]),
                    (ticker: "C", closes: [5]),
                ],
                benchmark: [100, 101, 102, 104, 110], period: .threeMonths, now: Date(timeIntervalSince1970: 0)))
        #expect(abs(result.totalReturn - 13.0 / 36.0) < 1e-12)
        #expect(abs(result.benchmarkReturn - 9.0 / 101.0) < 1e-12)
        #expect(abs(result.spread - (13.0 / 36.0 - 9.0 / 101.0)) < 1e-12)
        #expect(result.best.ticker == "A" && abs(result.best.return - 0.5) < 1e-12)
        #expect(result.worst.ticker == "B" && abs(result.worst.return - 2.0 / 9.0) < 1e-12)
        #expect(result.omitted == ["C"] && result.period == .threeMonths)
        // Day by day: A 1, 1.1, 1.2, 1.5; B 1, 16/18, 20/18, 22/18.
        let expected = [1.0, (1.1 + 16.0 / 18.0) / 2, (1.2 + 20.0 / 18.0) / 2, (1.5 + 22.0 / 18.0) / 2]
        #expect(zip(result.series, expected).allSatisfy { abs($0 - $1) < 1e-12 } && result.series.count == 4)
        #expect(result.benchmarkSeries.first == 1 && result.generatedAt == "1970-01-01T00:00:00.000Z")
    }

    @Test func withoutABenchmarkTheSpreadIsTheReturnAndNoHistoryIsNoResult() throws {
        let flat = try #require(
            Backtest.compute([(ticker: "A", closes: [10, 12])], benchmark: nil, period: .oneMonth, now: Date()))
        #expect(abs(flat.totalReturn - 0.2) < 1e-12 && flat.benchmarkReturn == 0 && flat.spread == flat.totalReturn)
        #expect(flat.benchmarkSeries == [1, 1])
        #expect(
            Backtest.compute(
                [(ticker: "A", closes: [10]), (ticker: "B", closes: [1, .nan])], benchmark: nil, period: .oneMonth,
                now: Date()) == nil)
    }

    @Test func sparklinesKeepTwentyPointsAndTheEnds() {
        let values = (0..<100).map(Double.init)
        let sampled = Backtest.resample(values, to: 20)
        #expect(sampled.count == 20 && sampled.first == 0 && sampled.last == 99)
        #expect(Backtest.resample([1, 2, 3], to: 20) == [1, 2, 3])
    }

    @Test func symbolsAreTheOriginalsAndReadinessFollowsThem() {
        #expect(
            BacktestCommand.symbols([" aapl", "AAPL", "BRK.B", "TOOLONGSYM", "1ABC", "X-Y"]) == [
                "AAPL", "BRK.B", "X-Y",
            ])
        let entry = { (t: String) in WatchEntry(ticker: t, source: .manual, createdAt: "2026-01-01T00:00:00.000Z") }
        #expect(!WatchlistRules.summary([entry("BRAND NAME CO")], updatedAt: "now").backtestReady)
        #expect(WatchlistRules.summary([entry("BRAND NAME CO"), entry("MSFT")], updatedAt: "now").backtestReady)
    }
}
