import Charts
import Contracts
import Foundation

/// Renders each chart type from a fixed synthetic year of daily bars and prints milliseconds per PNG.
/// `BenchCharts [iterations] [--write DIR]` also writes one PNG per type to DIR (docs/charts).
var iterations = 30
var outputDirectory: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--write" {
        outputDirectory = arguments.popFirst()
    } else if let n = Int(argument), n > 0 {
        iterations = n
    }
}

/// A seeded random walk: 252 trading days of drifting, noisy prices with volume that swells on big moves.
func syntheticYear() -> [PriceBar] {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func uniform() -> Double {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(state >> 11) / Double(1 << 53)
    }
    func normal() -> Double { (-2 * log(max(uniform(), 1e-12))).squareRoot() * cos(2 * .pi * uniform()) }
    var bars: [PriceBar] = []
    var close = 182.0
    var ts: Int64 = 1_764_547_200  // 2025-12-01
    while bars.count < 252 {
        let weekday = (ts / 86_400 + 4) % 7  // 0 = Sunday
        if weekday != 0 && weekday != 6 {
            let move = 0.0006 + 0.014 * normal() + (bars.count > 150 && bars.count < 175 ? -0.004 : 0)
            let open = close
            close = max(1, close * exp(move))
            let high = max(open, close) * (1 + abs(normal()) * 0.004)
            let low = min(open, close) * (1 - abs(normal()) * 0.004)
            let volume = 38_000_000 * (1 + 12 * abs(move)) * (0.7 + 0.6 * uniform())
            bars.append(PriceBar(ts: ts + 20 * 3600, open: open, high: high, low: low, close: close, volume: volume))
        }
        ts += 86_400
    }
    return bars
}

let year = syntheticYear()
print(
    "chart rendering, \(ChartRequest.defaultSize.width)×\(ChartRequest.defaultSize.height) px at \(ChartRequest.defaultSize.scale)×, \(iterations) renders per type, one thread"
)
for kind in ChartKind.allCases {
    let bars = kind == .auction ? Array(year.suffix(63)) : year
    let period = kind == .auction ? "3mo" : "1y"
    let request = ChartRequest(kind: kind, ticker: "MAPV", period: period, bars: bars, source: "synthetic series")
    var timings: [Double] = []
    var size = 0
    for _ in 0..<iterations {
        let start = ContinuousClock.now
        let chart = try ChartRenderer.draw(request)
        let elapsed = ContinuousClock.now - start
        timings.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        size = chart.png.count
        if let dir = outputDirectory, timings.count == 1 {
            try Data(chart.png).write(to: URL(fileURLWithPath: dir).appendingPathComponent("\(kind.rawValue).png"))
        }
    }
    timings.sort()
    let p50 = timings[timings.count / 2]
    let p99 = timings[min(timings.count - 1, Int(Double(timings.count) * 0.99))]
    print(
        String(
            format: "%-10@ p50 %6.1f ms  p99 %6.1f ms  png %4d KB  base64 %4d KB", kind.rawValue as NSString, p50, p99,
            size / 1024, (size + 2) / 3 * 4 / 1024))
}
