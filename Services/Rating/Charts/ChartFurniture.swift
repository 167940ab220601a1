import Contracts
import Foundation

/// The parts every layout shares (header, axes, tags, legend) and how numbers and labels are written.
extension ChartDrawing {
    // MARK: - Furniture

    var intervalWord: String {
        guard request.bars.count >= 2, let first = request.bars.first?.ts, let last = request.bars.last?.ts else {
            return "Daily"
        }
        let spacing = Double(last - first) / Double(request.bars.count - 1)
        return spacing < 20_000 ? "Intraday" : spacing > 4 * 86_400 ? "Weekly" : "Daily"
    }

    func header(subtitle: String) {
        canvas.text(request.ticker, x: left, y: 26, size: 17, color: Self.ink, bold: true)
        let w = canvas.textWidth(request.ticker, size: 17, bold: true)
        canvas.text(
            "  \(request.kind.title) · \(Self.periodLabel(request.period))", x: left + w, y: 26, size: 13,
            color: Self.ink)
        canvas.text(subtitle, x: left, y: 42, size: 9, color: Self.muted)
    }

    /// A frame for prices over time, padded 6 % of the range.
    func priceFrame(days: [Double], low: Double, high: Double, right: Double) -> Frame {
        let span = high - low
        let pad = span > 0 ? span * 0.06 : max(abs(high) * 0.01, 0.01)
        return Frame(
            x: left, y: top, w: canvas.width - left - right, h: canvas.height - top - axisBottom, xMin: 0,
            xMax: max(days.last ?? 1, 1e-3), yMin: low - pad, yMax: high + pad)
    }

    /// Grid lines and labels on the right; a label within reach of `tag` (the last price's tag) is left out.
    func priceAxis(_ frame: Frame, tag: Double? = nil) {
        let ticks = ChartMath.niceTicks(low: frame.yMin, high: frame.yMax, count: 8)
        let step = ticks.count > 1 ? ticks[1] - ticks[0] : 1
        for tick in ticks {
            let y = frame.py(tick)
            canvas.move(frame.x, y)
            canvas.line(frame.right, y)
            canvas.stroke(Self.gridLine, width: 0.6)
            if let tag, abs(frame.py(tag) - y) < 11 { continue }
            canvas.text(Self.tick(tick, step: step), x: frame.right + 6, y: y + 3.2, size: 9, color: Self.muted)
        }
        canvas.text(request.currency, x: frame.right + 6, y: top - 4, size: 8, color: Self.muted)
    }

    func timeAxis(_ frame: Frame, bars: [PriceBar], days: [Double]) {
        guard let firstTs = bars.first?.ts, let lastTs = bars.last?.ts else { return }
        let spanDays = Double(lastTs - firstTs) / 86_400
        var marks: [(day: Double, label: String)] = []
        if spanDays > 75 {
            var previous: (Int, Int)?
            for (bar, day) in zip(bars, days) {
                let (y, m, _) = ChartMath.civilDate(unixSeconds: bar.ts)
                if let p = previous, p != (y, m) {
                    let name = ChartMath.monthNames[m - 1]
                    marks.append((day, spanDays > 300 && m == 1 ? "\(name) ’\(y % 100)" : name))
                }
                previous = (y, m)
            }
            let stride = max(1, Int((Double(marks.count) / 7).rounded(.up)))
            marks = marks.enumerated().filter { $0.offset % stride == 0 }.map(\.element)
        } else {
            let count = min(6, bars.count)
            let indices = (0..<count).map { count > 1 ? $0 * (bars.count - 1) / (count - 1) : 0 }
            for i in Set(indices).sorted() {
                let (_, m, d) = ChartMath.civilDate(unixSeconds: bars[i].ts)
                let label = "\(ChartMath.monthNames[m - 1]) \(d)"
                if marks.last?.label != label { marks.append((days[i], label)) }
            }
        }
        canvas.move(frame.x, frame.bottom)
        canvas.line(frame.right, frame.bottom)
        canvas.stroke(Self.muted.with(alpha: 0.6), width: 0.8)
        for mark in marks {
            let x = frame.px(mark.day)
            canvas.move(x, frame.bottom)
            canvas.line(x, frame.bottom + 3)
            canvas.stroke(Self.muted.with(alpha: 0.6), width: 0.8)
            let w = canvas.textWidth(mark.label, size: 9)
            let cx = min(max(x, frame.x + w / 2), frame.right - w / 2)
            canvas.text(mark.label, x: cx, y: frame.bottom + 14, size: 9, color: Self.muted, align: .center)
        }
    }

    /// A filled tag on the price axis.
    func priceTag(_ text: String, y: Double, frame: Frame, color: ChartColor) {
        let w = canvas.textWidth(text, size: 9, bold: true) + 8
        canvas.rect(frame.right + 2, y - 7, w, 14)
        canvas.fill(color)
        canvas.text(text, x: frame.right + 6, y: y + 3.3, size: 9, color: ChartColor(hex: 0xFFFFFF), bold: true)
    }

    func legend(_ items: [(ChartColor, String)], frame: Frame) {
        var x = frame.x + 8
        let y = frame.y + 12
        let widths = items.map { canvas.textWidth($0.1, size: 8.5) + 24 }
        canvas.rect(frame.x + 3, frame.y + 3, widths.reduce(0, +) + 6, 14)
        canvas.fill(ChartColor(hex: 0xFFFFFF).with(alpha: 0.88))
        for ((color, label), w) in zip(items, widths) {
            canvas.move(x, y - 3)
            canvas.line(x + 12, y - 3)
            canvas.stroke(color, width: 2)
            canvas.text(label, x: x + 16, y: y, size: 8.5, color: Self.ink)
            x += w
        }
    }

    // MARK: - Number and label formatting

    static func periodLabel(_ period: String) -> String {
        switch period {
        case "5d": "5 days"
        case "1mo": "1 month"
        case "3mo": "3 months"
        case "6mo": "6 months"
        case "1y": "1 year"
        case "2y": "2 years"
        default: period
        }
    }

    static func price(_ v: Double) -> String {
        if abs(v) >= 10_000 { return grouped(v) }
        if abs(v) >= 1 { return String(format: "%.2f", v) }
        return String(format: "%.4f", v)
    }

    static func tick(_ v: Double, step: Double) -> String {
        if abs(v) >= 10_000 { return grouped(v) }
        var decimals = 0
        while decimals < 4 {
            let scaled = step * pow(10, Double(decimals))
            if abs(scaled - scaled.rounded()) < 1e-6 { break }
            decimals += 1
        }
        return String(format: "%.\(decimals)f", v)
    }

    static func grouped(_ v: Double) -> String {
        // Upstream figures can be anything finite: past 15 digits (or not finite) no Int conversion is attempted.
        guard v.isFinite, abs(v) < 1e15 else { return String(format: "%.3g", v) }
        let digits = String(Int(abs(v).rounded()))
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (v < 0 ? "−" : "") + out
    }

    static func percent(_ fraction: Double, digits: Int = 1) -> String {
        String(format: "%.\(digits)f%%", fraction * 100)
    }

    static func signedPercent(_ fraction: Double) -> String {
        (fraction >= 0 ? "+" : "−") + percent(abs(fraction))
    }

    static func trimmed(_ v: Double) -> String {
        var s = String(format: "%.2f", v)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }
}
