import Charts
import Contracts
import Foundation
import Testing

/// A fixed synthetic series: `count` daily bars from 2025-12-01 with a seeded walk and volume.
func syntheticBars(count: Int = 120, start: Double = 100, seed: UInt64 = 7) -> [PriceBar] {
    var state = seed
    func uniform() -> Double {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(state >> 11) / Double(1 << 53)
    }
    var close = start
    return (0..<count).map { i in
        close *= 1 + 0.0008 + (uniform() - 0.5) * 0.04
        return PriceBar(ts: 1_764_547_200 + Int64(i) * 86_400, close: close, volume: 1_000_000 * (0.5 + uniform()))
    }
}

@Suite struct ChartMathTests {
    @Test func logTrendOfAnExponentialIsExact() throws {
        let bars = (0..<50).map { PriceBar(ts: 1_700_000_000 + Int64($0) * 86_400, close: 20 * pow(1.002, Double($0))) }
        let fit = try #require(ChartMath.logTrend(bars))
        #expect(abs(fit.slopePerDay - log(1.002)) < 1e-12)
        #expect(abs(fit.intercept - log(20)) < 1e-10)
        #expect(fit.sigma < 1e-9 && abs(fit.r2 - 1) < 1e-9)
        #expect(abs(fit.price(atDay: 10) - 20 * pow(1.002, 10)) < 1e-9)
    }

    @Test func logTrendMatchesTheClosedFormLeastSquares() throws {
        let bars = syntheticBars()
        let fit = try #require(ChartMath.logTrend(bars))
        // Σ-form of the normal equations, written independently of the implementation's centred sums.
        let x = bars.map { Double($0.ts - bars[0].ts) / 86_400 }
        let y = bars.map { log($0.close) }
        let n = Double(bars.count)
        let sx = x.reduce(0, +)
        let sy = y.reduce(0, +)
        let sxx = zip(x, x).map(*).reduce(0, +)
        let sxy = zip(x, y).map(*).reduce(0, +)
        let slope = (n * sxy - sx * sy) / (n * sxx - sx * sx)
        let intercept = (sy - slope * sx) / n
        let ssr = zip(x, y).map { pow($1 - intercept - slope * $0, 2) }.reduce(0, +)
        #expect(abs(fit.slopePerDay - slope) < 1e-12)
        #expect(abs(fit.intercept - intercept) < 1e-9)
        #expect(abs(fit.sigma - (ssr / (n - 2)).squareRoot()) < 1e-12)
        #expect(ChartMath.logTrend(Array(bars.prefix(2))) == nil)
    }

    @Test func monthlyReturnsGroupByTheLaterBarsMonth() {
        // 2026-01-30, 01-31, 02-01, 02-02 (UTC).
        let bars = [100.0, 110, 99, 99].enumerated().map {
            PriceBar(ts: 1_769_731_200 + Int64($0.offset) * 86_400, close: $0.element)
        }
        let months = ChartMath.monthlyReturns(bars)
        #expect(months.map(\.month) == [1, 2] && months.map(\.year) == [2026, 2026])
        #expect(months[0].returns.count == 1 && abs(months[0].returns[0] - 0.1) < 1e-12)
        #expect(
            months[1].returns.count == 2 && abs(months[1].returns[0] - (99.0 / 110 - 1)) < 1e-12
                && months[1].returns[1] == 0)
    }

    @Test func gaussianKDEIsADensity() {
        let samples = syntheticBars().map { log($0.close) }
        let h = ChartMath.silvermanBandwidth(samples)
        let lo = (samples.min() ?? 0) - 6 * h
        let hi = (samples.max() ?? 0) + 6 * h
        let grid = (0...2000).map { lo + (hi - lo) * Double($0) / 2000 }
        let density = ChartMath.gaussianKDE(samples, grid: grid, bandwidth: h)
        let area = zip(density, density.dropFirst()).map { ($0 + $1) / 2 * (hi - lo) / 2000 }.reduce(0, +)
        #expect(abs(area - 1) < 1e-3)
        // One sample: the normal density with σ = h at its centre.
        let single = ChartMath.gaussianKDE([0.5], grid: [0.5, 0.6], bandwidth: 0.1)
        #expect(abs(single[0] - 1 / (0.1 * (2 * Double.pi).squareRoot())) < 1e-9)
        #expect(abs(single[1] - single[0] * exp(-0.5)) < 1e-9)
    }

    @Test func silvermanBandwidthFollowsTheRule() {
        let samples = (1...100).map { Double($0) }
        let n = 100.0
        let mean = 50.5
        let sd = (samples.map { pow($0 - mean, 2) }.reduce(0, +) / (n - 1)).squareRoot()
        let iqr = ChartMath.quantile(samples, 0.75) - ChartMath.quantile(samples, 0.25)
        #expect(abs(ChartMath.silvermanBandwidth(samples) - 0.9 * min(sd, iqr / 1.34) * pow(n, -0.2)) < 1e-12)
    }

    @Test func volumeProfileFindsPocAndValueArea() throws {
        // Closes 10…19, one bar each, volumes peaking at 15.
        let volumes: [Double] = [1, 2, 3, 5, 8, 20, 9, 4, 2, 1]
        let bars = volumes.enumerated().map {
            PriceBar(ts: Int64($0.offset) * 86_400, close: 10 + Double($0.offset), volume: $0.element)
        }
        let profile = try #require(ChartMath.volumeProfile(bars, bins: 9, share: 0.7))
        #expect(profile.lower == 10 && profile.binWidth == 1)
        // The top bin holds both 18 and 19 (the highest close sits in the last bin).
        #expect(profile.volumes == [1, 2, 3, 5, 8, 20, 9, 4, 3])
        #expect(profile.pocBin == 5 && profile.poc == 15.5)
        // From 20: +9 (above) → 29, +8 (below) → 37, +5 → 42 (≥ 0.7 · 55 = 38.5).
        #expect(profile.valueArea == 3...6)
        #expect(profile.val == 13 && profile.vah == 17)
        #expect(ChartMath.volumeProfile(bars.map { PriceBar(ts: $0.ts, close: $0.close) }) == nil)
    }

    @Test func ticksAndDates() {
        #expect(ChartMath.niceTicks(low: 0, high: 10, count: 6) == [0, 2, 4, 6, 8, 10])
        #expect(ChartMath.niceTicks(low: 147.3, high: 262.9, count: 7) == [160, 180, 200, 220, 240, 260])
        #expect(ChartMath.civilDate(unixSeconds: 1_764_547_200) == (2025, 12, 1))
        #expect(ChartMath.civilDate(unixSeconds: 951_782_400) == (2000, 2, 29))
        #expect(ChartMath.monthLabel(year: 2026, month: 3) == "Mar 2026")
    }
}
