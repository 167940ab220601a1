import Contracts
import Foundation

/// A least-squares line through log prices against time in days since the first bar:
/// `ln(price) ≈ intercept + slopePerDay · day`, with the residuals' standard deviation for the ±σ channels.
public struct LogTrend: Sendable, Equatable {
    /// d ln(price) / d day.
    public let slopePerDay: Double
    /// ln(price) of the line at the first bar.
    public let intercept: Double
    /// The residuals' standard deviation in log units, `sqrt(SSR / (n − 2))`.
    public let sigma: Double
    /// The share of variance the line explains, 0…1.
    public let r2: Double

    /// The channel's price at `day` shifted by `sigmas` standard deviations.
    public func price(atDay day: Double, sigmas: Double = 0) -> Double {
        exp(intercept + slopePerDay * day + sigmas * sigma)
    }

    /// The trend's growth per 365 days as a fraction (0.12 = +12 %).
    var annualGrowth: Double { exp(slopePerDay * 365) - 1 }
}

/// Daily returns of one calendar month (UTC), for a ridge.
public struct MonthReturns: Sendable, Equatable {
    public let year: Int
    public let month: Int
    /// Simple returns `close / previous close − 1`, each assigned to the month of its later bar.
    public let returns: [Double]
}

/// Volume by price bin and the auction levels read from it.
public struct VolumeProfile: Sendable, Equatable {
    /// The lowest bin's lower edge.
    public let lower: Double
    public let binWidth: Double
    /// Volume per bin, lowest price first.
    public let volumes: [Double]
    /// The bin of maximum volume (the lowest such bin on a tie).
    public let pocBin: Int
    /// The bins of the value area: grown from the POC towards the larger neighbour until it holds the share.
    public let valueArea: ClosedRange<Int>

    /// Point of control: the centre of the POC bin.
    public var poc: Double { lower + (Double(pocBin) + 0.5) * binWidth }
    /// Value-area high: the upper edge of the value area's highest bin.
    public var vah: Double { lower + Double(valueArea.upperBound + 1) * binWidth }
    /// Value-area low: the lower edge of the value area's lowest bin.
    public var val: Double { lower + Double(valueArea.lowerBound) * binWidth }
}

/// The charts' maths, free of drawing: trend channels, return densities, volume profiles, axis ticks, dates.
public enum ChartMath {
    /// Days since the first bar.
    public static func days(_ bars: [PriceBar]) -> [Double] {
        guard let first = bars.first?.ts else { return [] }
        return bars.map { Double($0.ts - first) / 86_400 }
    }

    /// Least squares of ln(close) on days since the first bar; nil with fewer than three usable bars or no spread
    /// in time.
    public static func logTrend(_ bars: [PriceBar]) -> LogTrend? {
        let usable = bars.filter { $0.close > 0 && $0.close.isFinite }
        guard usable.count >= 3 else { return nil }
        let x = days(usable)
        let y = usable.map { log($0.close) }
        let n = Double(usable.count)
        let meanX = x.reduce(0, +) / n
        let meanY = y.reduce(0, +) / n
        var sxx = 0.0
        var sxy = 0.0
        var syy = 0.0
        for (xi, yi) in zip(x, y) {
            sxx += (xi - meanX) * (xi - meanX)
            sxy += (xi - meanX) * (yi - meanY)
            syy += (yi - meanY) * (yi - meanY)
        }
        guard sxx > 0 else { return nil }
        let slope = sxy / sxx
        let intercept = meanY - slope * meanX
        var ssr = 0.0
        for (xi, yi) in zip(x, y) {
            let r = yi - (intercept + slope * xi)
            ssr += r * r
        }
        let sigma = (ssr / (n - 2)).squareRoot()
        let r2 = syy > 0 ? max(0, 1 - ssr / syy) : 1
        return LogTrend(slopePerDay: slope, intercept: intercept, sigma: sigma, r2: r2)
    }

    /// Daily simple returns grouped by the UTC calendar month of the later bar, oldest month first.
    public static func monthlyReturns(_ bars: [PriceBar]) -> [MonthReturns] {
        var groups: [(year: Int, month: Int, returns: [Double])] = []
        for (previous, bar) in zip(bars, bars.dropFirst()) where previous.close > 0 {
            let r = bar.close / previous.close - 1
            guard r.isFinite else { continue }
            let (year, month, _) = civilDate(unixSeconds: bar.ts)
            if let last = groups.last, last.year == year, last.month == month {
                groups[groups.count - 1].returns.append(r)
            } else {
                groups.append((year, month, [r]))
            }
        }
        return groups.map { MonthReturns(year: $0.year, month: $0.month, returns: $0.returns) }
    }

    /// Silverman's rule of thumb, `0.9 · min(sd, IQR / 1.34) · n^(−1/5)`, never below `floor`.
    public static func silvermanBandwidth(_ samples: [Double], floor: Double = 1e-4) -> Double {
        guard samples.count >= 2 else { return max(floor, 0.01) }
        let n = Double(samples.count)
        let mean = samples.reduce(0, +) / n
        let sd = (samples.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (n - 1)).squareRoot()
        let sorted = samples.sorted()
        let iqr = quantile(sorted, 0.75) - quantile(sorted, 0.25)
        let spread = iqr > 0 ? min(sd, iqr / 1.34) : sd
        return max(floor, 0.9 * spread * pow(n, -0.2))
    }

    /// The Gaussian kernel density estimate of `samples` at each point of `grid` (it integrates to 1).
    public static func gaussianKDE(_ samples: [Double], grid: [Double], bandwidth: Double) -> [Double] {
        guard !samples.isEmpty, bandwidth > 0 else { return grid.map { _ in 0 } }
        let norm = 1 / (Double(samples.count) * bandwidth * (2 * Double.pi).squareRoot())
        return grid.map { x in
            var sum = 0.0
            for s in samples {
                let u = (x - s) / bandwidth
                sum += exp(-0.5 * u * u)
            }
            return sum * norm
        }
    }

    /// Volume by close price in `bins` equal bins between the lowest and highest close, and the value area
    /// holding `share` of the volume. Nil when no bar has a positive volume.
    public static func volumeProfile(_ bars: [PriceBar], bins: Int = 24, share: Double = 0.7) -> VolumeProfile? {
        let traded = bars.filter { ($0.volume ?? 0) > 0 && $0.close.isFinite && ($0.volume ?? 0).isFinite }
        guard let minClose = traded.map(\.close).min(), let maxClose = traded.map(\.close).max(), bins >= 1 else {
            return nil
        }
        let span = maxClose - minClose
        let width = span > 0 ? span / Double(bins) : max(abs(minClose) * 0.001, 1e-6)
        let lower = span > 0 ? minClose : minClose - width * Double(bins) / 2
        var volumes = [Double](repeating: 0, count: bins)
        for bar in traded {
            let index = min(bins - 1, max(0, Int(((bar.close - lower) / width).rounded(.down))))
            volumes[index] += bar.volume ?? 0
        }
        var poc = 0
        for i in volumes.indices where volumes[i] > volumes[poc] { poc = i }
        let target = share * volumes.reduce(0, +)
        var low = poc
        var high = poc
        var held = volumes[poc]
        while held < target && (low > 0 || high < bins - 1) {
            let above = high < bins - 1 ? volumes[high + 1] : -1
            let below = low > 0 ? volumes[low - 1] : -1
            if above >= below {
                high += 1
                held += volumes[high]
            } else {
                low -= 1
                held += volumes[low]
            }
        }
        return VolumeProfile(lower: lower, binWidth: width, volumes: volumes, pocBin: poc, valueArea: low...high)
    }

    /// About `count` round tick values covering `low…high` (steps of 1, 2, 2.5 or 5 × 10ⁿ).
    public static func niceTicks(low: Double, high: Double, count: Int = 5) -> [Double] {
        guard low.isFinite, high.isFinite, count >= 2 else { return [] }
        let span = high > low ? high - low : max(abs(low) * 0.1, 1)
        let raw = span / Double(count - 1)
        let magnitude = pow(10, (log10(raw)).rounded(.down))
        let step = [1, 2, 2.5, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? 10 * magnitude
        var ticks: [Double] = []
        var value = (low / step).rounded(.up) * step
        while value <= high + step * 1e-9 && ticks.count < 50 {
            ticks.append(abs(value) < step * 1e-9 ? 0 : value)
            value += step
        }
        return ticks
    }

    /// The `p` quantile (0…1) of sorted values, by linear interpolation.
    public static func quantile(_ sorted: [Double], _ p: Double) -> Double {
        guard let first = sorted.first else { return 0 }
        guard sorted.count > 1 else { return first }
        let position = p * Double(sorted.count - 1)
        let i = Int(position.rounded(.down))
        let j = min(sorted.count - 1, i + 1)
        return sorted[i] + (sorted[j] - sorted[i]) * (position - Double(i))
    }

    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar
    }()

    /// (year, month 1…12, day 1…31) in UTC of a unix time.
    public static func civilDate(unixSeconds: Int64) -> (year: Int, month: Int, day: Int) {
        let parts = utc.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(unixSeconds)))
        return (parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }

    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Mar 2026`-style month label.
    public static func monthLabel(year: Int, month: Int) -> String {
        "\(monthNames[max(1, min(12, month)) - 1]) \(year)"
    }
}
