import Contracts

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Massive's custom bars (`/v2/aggs/ticker/<SYM>/range/<n>/<span>/<from>/<to>?adjusted=true&sort=asc`).
enum MassiveAggregates {
    /// The path and query for `range` of `interval` bars ending `now` (calendar days back: 5d → 8, 1mo → 31,
    /// 3mo → 92, 6mo → 183, 1y → 366, 2y → 731; the 5-day range keeps the last five bars).
    static func path(_ symbol: String, range: HistoryPeriod, interval: HistoryInterval, now: Date) -> String {
        let days: Int =
            switch range {
            case .fiveDays: 8
            case .oneMonth: 31
            case .threeMonths: 92
            case .sixMonths: 183
            case .oneYear: 366
            case .twoYears: 731
            }
        let span =
            switch interval {
            case .fifteenMinutes: "15/minute"
            case .oneDay: "1/day"
            case .oneWeek: "1/week"
            }
        let day = Date.ISO8601FormatStyle().year().month().day()
        let from = now.addingTimeInterval(-Double(days) * 86_400).formatted(day)
        return "/v2/aggs/ticker/\(MarketSymbol.percentEncoded(symbol))/range/\(span)/\(from)/\(now.formatted(day))"
            + "?adjusted=true&sort=asc&limit=50000"
    }

    /// Bars from `results[{t (ms), o, h, l, c, v}]`, oldest first; bars without a positive close are skipped, a
    /// 5-day range keeps its last five; fewer than two bars or `status: "ERROR"` → nil.
    static func bars(from body: [UInt8], range: HistoryPeriod) -> [PriceBar]? {
        struct Envelope: Decodable {
            struct Bar: Decodable {
                var t: Double?
                var o: Double?
                var h: Double?
                var l: Double?
                var c: Double?
                var v: Double?
            }
            var status: String?
            var results: [Bar?]?
        }
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(body)),
            envelope.status?.uppercased() != "ERROR"
        else { return nil }
        var bars: [PriceBar] = []
        for bar in envelope.results ?? [] {
            guard let bar, let close = bar.c.positive, let t = bar.t.finite, t > 0, t < 1e15 else { continue }
            bars.append(
                PriceBar(
                    ts: Int64(t / 1000), open: bar.o.positive, high: bar.h.positive, low: bar.l.positive, close: close,
                    volume: bar.v.finite.flatMap { $0 >= 0 ? $0 : nil }))
        }
        bars.sort { $0.ts < $1.ts }
        if range == .fiveDays { bars = Array(bars.suffix(5)) }
        return bars.count >= 2 ? bars : nil
    }
}
