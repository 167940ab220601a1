import Contracts
import Foundation

/// The four layouts, drawn on one canvas in logical units (540 × 360 at the default size). The numbers come from
/// `ChartMath`; this file only decides where things go.
struct ChartDrawing {
    let canvas: CairoCanvas
    let request: ChartRequest

    struct Output {
        var levels: AuctionLevels?
        var facts: [String: Double]
    }

    static let ink = ChartColor(hex: 0x111827)
    static let muted = ChartColor(hex: 0x6B7280)
    static let gridLine = ChartColor(hex: 0xE5E7EB)
    static let accent = ChartColor(hex: 0x2563EB)
    static let trend = ChartColor(hex: 0xEA580C)
    static let up = ChartColor(hex: 0x16A34A)
    static let down = ChartColor(hex: 0xDC2626)
    static let neutralBar = ChartColor(hex: 0xCBD5E1)

    /// The plot rectangle and the value ranges it maps.
    struct Frame {
        var x: Double
        var y: Double
        var w: Double
        var h: Double
        var xMin: Double
        var xMax: Double
        var yMin: Double
        var yMax: Double

        var right: Double { x + w }
        var bottom: Double { y + h }
        func px(_ v: Double) -> Double { xMax > xMin ? x + (v - xMin) / (xMax - xMin) * w : x + w / 2 }
        func py(_ v: Double) -> Double { yMax > yMin ? bottom - (v - yMin) / (yMax - yMin) * h : y + h / 2 }
    }

    let left = 16.0
    let top = 58.0
    let axisRight = 58.0
    let axisBottom = 34.0

    func draw() throws(ChartError) -> Output {
        switch request.kind {
        case .price: return drawPrice()
        case .regression: return try drawRegression()
        case .ridge: return try drawRidge()
        case .auction: return try drawAuction()
        }
    }

    // MARK: - Price

    private func drawPrice() -> Output {
        let bars = request.bars
        let days = ChartMath.days(bars)
        let closes = bars.map(\.close)
        let frame = priceFrame(days: days, low: closes.min() ?? 0, high: closes.max() ?? 1, right: axisRight)
        let first = closes.first ?? 1
        let last = closes.last ?? 1
        let change = first > 0 ? last / first - 1 : 0
        header(subtitle: "\(intervalWord) closes · \(request.source) · \(Self.signedPercent(change)) over the period")
        priceAxis(frame, tag: last)
        timeAxis(frame, bars: bars, days: days)

        let points = zip(days, closes).map { (frame.px($0), frame.py($1)) }
        canvas.polyline(points)
        canvas.line(frame.px(days.last ?? 0), frame.bottom)
        canvas.line(frame.px(0), frame.bottom)
        canvas.close()
        canvas.fillVerticalGradient(
            top: Self.accent.with(alpha: 0.28), bottom: Self.accent.with(alpha: 0.02), y0: frame.y, y1: frame.bottom)
        canvas.polyline(points)
        canvas.stroke(Self.accent, width: 1.8)
        if let end = points.last {
            canvas.circle(end.0, end.1, radius: 3.2)
            canvas.fill(Self.accent)
            canvas.circle(end.0, end.1, radius: 1.4)
            canvas.fill(ChartColor(hex: 0xFFFFFF))
            priceTag(Self.price(last), y: end.1, frame: frame, color: Self.accent)
        }
        return Output(levels: nil, facts: ["last": last, "change": change])
    }

    // MARK: - Regression

    private func drawRegression() throws(ChartError) -> Output {
        let bars = request.bars
        guard let fit = ChartMath.logTrend(bars) else {
            throw ChartError(.insufficientData, "not enough price history for a regression channel")
        }
        let days = ChartMath.days(bars)
        let closes = bars.map(\.close)
        let end = days.last ?? 1
        let samples = (0...80).map { end * Double($0) / 80 }
        let low = min(closes.min() ?? 0, samples.map { fit.price(atDay: $0, sigmas: -2) }.min() ?? 0)
        let high = max(closes.max() ?? 1, samples.map { fit.price(atDay: $0, sigmas: 2) }.max() ?? 1)
        let frame = priceFrame(days: days, low: low, high: high, right: axisRight)
        header(
            subtitle:
                "\(intervalWord) closes · \(request.source) · least squares on log price, ±1σ and ±2σ channels")
        priceAxis(frame, tag: closes.last)
        timeAxis(frame, bars: bars, days: days)

        func curve(_ sigmas: Double) -> [(Double, Double)] {
            samples.map { (frame.px($0), frame.py(fit.price(atDay: $0, sigmas: sigmas))) }
        }
        canvas.clip(frame.x, frame.y, frame.w, frame.h)
        for (outer, alpha) in [(2.0, 0.07), (1.0, 0.13)] {
            canvas.polyline(curve(outer) + curve(-outer).reversed())
            canvas.close()
            canvas.fill(Self.accent.with(alpha: alpha))
        }
        for sigmas in [2.0, -2.0] {
            canvas.polyline(curve(sigmas))
            canvas.stroke(Self.accent.with(alpha: 0.65), width: 0.8, dash: [3, 2.5])
        }
        for sigmas in [1.0, -1.0] {
            canvas.polyline(curve(sigmas))
            canvas.stroke(Self.accent.with(alpha: 0.8), width: 0.8)
        }
        canvas.polyline(curve(0))
        canvas.stroke(Self.trend, width: 1.6)
        canvas.polyline(zip(days, closes).map { (frame.px($0), frame.py($1)) })
        canvas.stroke(Self.ink, width: 1.3)
        canvas.unclip()
        let labelDay = end * 0.02
        for (sigmas, label) in [(2.0, "+2σ"), (1.0, "+1σ"), (-1.0, "−1σ"), (-2.0, "−2σ")] {
            let y = frame.py(fit.price(atDay: labelDay, sigmas: sigmas))
            canvas.rect(frame.px(labelDay) - 1.5, y - 10, canvas.textWidth(label, size: 8) + 3, 9)
            canvas.fill(ChartColor(hex: 0xFFFFFF).with(alpha: 0.8))
            canvas.text(label, x: frame.px(labelDay), y: y - 2.5, size: 8, color: Self.accent)
        }
        legend(
            [
                (Self.ink, "Close"),
                (Self.trend, "Trend \(Self.signedPercent(fit.annualGrowth)) / yr"),
                (Self.accent, "σ \(Self.percent(exp(fit.sigma) - 1)) · R² \(String(format: "%.2f", fit.r2))"),
            ], frame: frame)
        if let last = closes.last {
            priceTag(Self.price(last), y: frame.py(last), frame: frame, color: Self.ink)
        }
        return Output(
            levels: nil,
            facts: [
                "slopePerDay": fit.slopePerDay, "intercept": fit.intercept, "sigma": fit.sigma, "r2": fit.r2,
                "annualGrowth": fit.annualGrowth,
            ])
    }

    // MARK: - Ridge

    private func drawRidge() throws(ChartError) -> Output {
        let months = ChartMath.monthlyReturns(request.bars).filter { $0.returns.count >= 2 }
        guard !months.isEmpty else {
            throw ChartError(.insufficientData, "not enough daily returns for a ridgeline chart")
        }
        let all = months.flatMap(\.returns)
        let magnitudes = all.map { abs($0) }.sorted()
        let reach = max(ChartMath.quantile(magnitudes, 0.99) * 1.4, 0.005)
        let grid = (0...160).map { -reach + 2 * reach * Double($0) / 160 }
        let bandwidth = ChartMath.silvermanBandwidth(all)
        let densities = months.map { ChartMath.gaussianKDE($0.returns, grid: grid, bandwidth: bandwidth) }
        let peak = densities.flatMap { $0 }.max() ?? 1

        header(
            subtitle:
                "Daily returns · \(request.source) · Gaussian KDE per month, bandwidth \(Self.percent(bandwidth, digits: 2))"
        )
        let labelWidth = 62.0
        let frame = Frame(
            x: left + labelWidth, y: top, w: canvas.width - left - labelWidth - 50, h: canvas.height - top - axisBottom,
            xMin: -reach * 100, xMax: reach * 100, yMin: 0, yMax: 1)
        let count = Double(months.count)
        let step = months.count > 1 ? frame.h / (count - 1 + 2.2) : 0
        let ridgeHeight = months.count > 1 ? 2.2 * step : frame.h * 0.9

        for tick in ChartMath.niceTicks(low: frame.xMin, high: frame.xMax, count: 7) {
            let x = frame.px(tick)
            canvas.move(x, frame.y)
            canvas.line(x, frame.bottom)
            if tick == 0 {
                canvas.stroke(Self.muted.with(alpha: 0.8), width: 0.8, dash: [3, 2])
            } else {
                canvas.stroke(Self.gridLine, width: 0.6)
            }
            let label = tick == 0 ? "0%" : (tick > 0 ? "+" : "−") + Self.trimmed(abs(tick)) + "%"
            canvas.text(label, x: x, y: frame.bottom + 13, size: 9, color: Self.muted, align: .center)
        }
        canvas.text(
            "Daily return", x: frame.x + frame.w / 2, y: frame.bottom + 27, size: 9, color: Self.muted, align: .center)
        canvas.text("month", x: frame.right + 6, y: top - 4, size: 8, color: Self.muted)

        for (i, month) in months.enumerated() {
            let baseline = frame.y + ridgeHeight + step * Double(i)
            let points = zip(grid, densities[i]).map { (frame.px($0 * 100), baseline - $1 / peak * ridgeHeight) }
            let total = month.returns.reduce(1) { $0 * (1 + $1) } - 1
            let color = total >= 0 ? Self.up : Self.down
            canvas.polyline(points)
            canvas.line(frame.right, baseline)
            canvas.line(frame.x, baseline)
            canvas.close()
            canvas.fill(ChartColor(hex: 0xFFFFFF).with(alpha: 0.85), preserve: true)
            canvas.fill(color.with(alpha: 0.35))
            canvas.polyline(points)
            canvas.stroke(color, width: 1.1)
            canvas.move(frame.x, baseline)
            canvas.line(frame.right, baseline)
            canvas.stroke(Self.gridLine, width: 0.6)
            // Labels shrink with the row spacing, and every other one is skipped when rows get too tight.
            let labelSize = months.count > 1 ? min(9.5, max(7, step * 0.9)) : 9.5
            guard months.count <= 1 || step >= 7.5 || i % 2 == (months.count - 1) % 2 else { continue }
            canvas.text(
                ChartMath.monthLabel(year: month.year, month: month.month), x: left, y: baseline - 2, size: labelSize,
                color: Self.ink)
            canvas.text(Self.signedPercent(total), x: frame.right + 6, y: baseline - 2, size: labelSize, color: color)
        }
        return Output(levels: nil, facts: ["months": count, "bandwidth": bandwidth])
    }

    // MARK: - Auction

    private func drawAuction() throws(ChartError) -> Output {
        let bars = request.bars
        guard let profile = ChartMath.volumeProfile(bars, bins: 24, share: 0.7) else {
            throw ChartError(.insufficientData, "no volume in the price history for a volume profile")
        }
        let days = ChartMath.days(bars)
        let closes = bars.map(\.close)
        let upper = profile.lower + profile.binWidth * Double(profile.volumes.count)
        let pad = (upper - profile.lower) * 0.04
        let plotRight = canvas.width - axisRight
        let priceWidth = (plotRight - left) * 0.66
        let frame = Frame(
            x: left, y: top, w: priceWidth, h: canvas.height - top - axisBottom, xMin: 0, xMax: max(days.last ?? 1, 1),
            yMin: profile.lower - pad, yMax: upper + pad)
        let panelX = frame.right + 10
        let panelW = plotRight - panelX
        var full = frame
        full.w = plotRight - left
        let levels = AuctionLevels(poc: profile.poc, vah: profile.vah, val: profile.val)
        header(subtitle: "\(intervalWord) closes and volume · \(request.source) · value area holds 70% of volume")
        priceAxis(full)
        timeAxis(frame, bars: bars, days: days)

        let maxVolume = profile.volumes.max() ?? 1
        for (i, volume) in profile.volumes.enumerated() where volume > 0 {
            let y0 = frame.py(profile.lower + Double(i + 1) * profile.binWidth)
            let y1 = frame.py(profile.lower + Double(i) * profile.binWidth)
            let color =
                i == profile.pocBin
                ? Self.trend : profile.valueArea.contains(i) ? Self.accent.with(alpha: 0.6) : Self.neutralBar
            canvas.rect(panelX, y0 + 0.4, max(0.5, volume / maxVolume * panelW), max(0.5, y1 - y0 - 0.8))
            canvas.fill(color)
        }
        canvas.text("volume at price", x: panelX, y: top - 4, size: 8, color: Self.muted)
        canvas.move(panelX, frame.bottom)
        canvas.line(plotRight, frame.bottom)
        canvas.stroke(Self.gridLine, width: 0.6)

        canvas.rect(frame.x, frame.py(levels.vah), plotRight - frame.x, frame.py(levels.val) - frame.py(levels.vah))
        canvas.fill(Self.accent.with(alpha: 0.06))
        canvas.polyline(zip(days, closes).map { (frame.px($0), frame.py($1)) })
        canvas.stroke(Self.ink, width: 1.4)
        for (value, label, color, dash) in [
            (levels.vah, "VAH", Self.accent, [3.0, 2.5]), (levels.poc, "POC", Self.trend, []),
            (levels.val, "VAL", Self.accent, [3.0, 2.5]),
        ] {
            let y = frame.py(value)
            canvas.move(frame.x, y)
            canvas.line(plotRight, y)
            canvas.stroke(color, width: label == "POC" ? 1.3 : 1, dash: dash)
            let text = "\(label) \(Self.price(value))"
            let w = canvas.textWidth(text, size: 8.5, bold: true)
            let below = label == "VAL"
            canvas.rect(frame.x + 2, below ? y + 1.5 : y - 11.5, w + 6, 10)
            canvas.fill(ChartColor(hex: 0xFFFFFF).with(alpha: 0.85))
            canvas.text(text, x: frame.x + 5, y: below ? y + 9.5 : y - 3.5, size: 8.5, color: color, bold: true)
        }
        return Output(
            levels: levels,
            facts: [
                "binWidth": profile.binWidth, "bins": Double(profile.volumes.count), "pocBin": Double(profile.pocBin),
            ])
    }
}
