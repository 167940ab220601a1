import Contracts
import Foundation
import Runtime

/// The backtest arithmetic, as the original defined it: every usable series (at least two positive closes) is
/// tail-aligned to the shortest one and normalised to 1.0 at its start; the basket is their arithmetic mean
/// (equal weight, no rebalancing); the benchmark is tail-aligned the same way, or flat when missing.
public enum Backtest {
    public static let sparklinePoints = 20

    public static func compute(
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

    public static func normalised(_ closes: [Double]) -> [Double] {
        guard let base = closes.first, base > 0 else { return closes.map { _ in 1 } }
        return closes.map { $0 / base }
    }

    /// Nearest-index resampling to `count` points (first and last kept); shorter series are returned whole.
    public static func resample(_ values: [Double], to count: Int) -> [Double] {
        guard values.count > count, count > 1 else { return values }
        return (0..<count).map { values[$0 * (values.count - 1) / (count - 1)] }
    }
}
