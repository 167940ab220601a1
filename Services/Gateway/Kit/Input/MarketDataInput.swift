import Contracts
import Foundation

/// The market-data surface's query rules (docs/COMPATIBILITY.md#market-data-surface): each parser answers the
/// command or the contract's 400 text. Pure.
enum MarketDataInput {
    static let timespans: Set<String> = ["minute", "hour", "day", "week", "month", "quarter", "year"]

    /// `GET /v1/market-data/aggregates`. `today` is the UTC date the defaults count from.
    static func aggregates(_ query: [String: String], today: Date = Date()) -> Result<AggregatesCommand, Invalid> {
        let symbol = trimmed(query["symbol"]).uppercased()
        guard !symbol.isEmpty else { return .failure("symbol required") }
        guard symbol.utf8.count <= 32 else { return .failure("invalid symbol") }
        let timespan = query["timespan"].map { trimmed($0).lowercased() } ?? "day"
        guard timespans.contains(timespan) else { return .failure("invalid timespan") }
        guard let multiplier = wholeNumber(query["multiplier"] ?? "1"), (1...1000).contains(multiplier) else {
            return .failure("multiplier must be a positive integer")
        }
        let rawFrom = present(query["from"])
        let rawTo = present(query["to"])
        let from = rawFrom.map(MarketDate.parse) ?? MarketDate.day(today, minusDays: 30)
        let to = rawTo.map(MarketDate.parse) ?? MarketDate.day(today, minusDays: 0)
        guard let from, let to else { return .failure("from and to must be valid dates") }
        guard from <= to else { return .failure("from must be on or before to") }
        let barsPerDay: Double =
            switch timespan {
            case "minute": 1440
            case "hour": 24
            case "week": 1.0 / 7
            case "month": 1.0 / 30
            case "quarter": 1.0 / 90
            case "year": 1.0 / 365
            default: 1
            }
        let days = Double(MarketDate.days(from: from, to: to))
        guard (days * barsPerDay / Double(multiplier)).rounded(.up) <= 50_000 else {
            return .failure("aggregate range too large")
        }
        var cursor: String?
        if let raw = query["cursor"] {
            guard let valid = self.cursor(raw) else { return .failure("invalid cursor") }
            cursor = valid
        }
        return .success(
            AggregatesCommand(
                symbol: symbol, timespan: timespan, multiplier: multiplier, from: from.text, to: to.text,
                adjusted: query["adjusted"] != "false", cursor: cursor))
    }

    /// `GET /v1/financials/ratios`.
    static func ratios(_ query: [String: String]) -> Result<FinancialRatiosCommand, Invalid> {
        let ticker = trimmed(query["ticker"]).uppercased()
        guard !ticker.isEmpty else { return .failure("ticker required") }
        let invalid = Invalid("invalid financial ratios query")
        guard marketTicker(ticker) else { return .failure(invalid) }
        var limit = 1
        if let raw = query["limit"] {
            guard let n = wholeNumber(raw), (1...500).contains(n) else { return .failure(invalid) }
            limit = n
        }
        var cursor: String?
        if let raw = query["cursor"] {
            guard let valid = self.cursor(raw) else { return .failure(invalid) }
            cursor = valid
        }
        return .success(FinancialRatiosCommand(ticker: ticker, limit: limit, cursor: cursor))
    }

    /// `GET /v1/market-events`.
    static func events(_ query: [String: String]) -> Result<MarketEventsCommand, Invalid> {
        let ticker = present(query["ticker"]).map { trimmed($0).uppercased() }
        if let ticker, ticker.utf8.count > 32 { return .failure("invalid ticker") }
        var limit = 100
        if let raw = query["limit"].map(trimmed), let n = Double(raw), n.isFinite {
            limit = Int(min(500, max(1, n.rounded(.down))))
        }
        let rawFrom = present(query["from"])
        let rawTo = present(query["to"])
        let from = rawFrom.map(MarketDate.parse)
        let to = rawTo.map(MarketDate.parse)
        if from == .some(nil) || to == .some(nil) { return .failure("from and to must be valid dates") }
        if let from = from ?? nil, let to = to ?? nil, from > to { return .failure("from must be on or before to") }
        guard ticker != nil || (from != nil && to != nil) else {
            return .failure("ticker or bounded date range required")
        }
        if let from = from ?? nil, let to = to ?? nil, MarketDate.days(from: from, to: to) > 366 {
            return .failure("event date range too large")
        }
        return .success(
            MarketEventsCommand(ticker: ticker, from: (from ?? nil)?.text, to: (to ?? nil)?.text, limit: limit))
    }

    /// `^[A-Z][A-Z0-9._-]{0,14}$`.
    static func marketTicker(_ s: String) -> Bool {
        let bytes = Array(s.utf8)
        guard (1...15).contains(bytes.count), (65...90).contains(bytes[0]) else { return false }
        return bytes.dropFirst().allSatisfy {
            (65...90).contains($0) || (48...57).contains($0) || [46, 95, 45].contains($0)
        }
    }

    /// 1…2048 code points (as the document's `maxLength` counts them), none of them white space (Unicode's
    /// White_Space, the document's `\S`) or a C0 control or DEL; passed on unchanged.
    static func cursor(_ raw: String) -> String? {
        let scalars = raw.unicodeScalars
        guard (1...2048).contains(scalars.count),
            scalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && !$0.properties.isWhitespace })
        else { return nil }
        return raw
    }

    /// An integer written in decimal (`Number.isInteger` of the text): `"10"`, `"1e2"`, `"5.0"`; nil otherwise.
    static func wholeNumber(_ raw: String) -> Int? {
        guard let n = Double(trimmed(raw)), n.isFinite, n == n.rounded(), abs(n) < 1e9 else { return nil }
        return Int(n)
    }

    static func trimmed(_ raw: String?) -> String { raw?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "" }

    static func present(_ raw: String?) -> String? {
        let s = trimmed(raw)
        return s.isEmpty ? nil : s
    }

    /// A rejected query and its message.
    struct Invalid: Error, ExpressibleByStringLiteral {
        let text: String
        init(_ text: String) { self.text = text }
        init(stringLiteral text: String) { self.text = text }
    }
}

/// A real calendar day, `YYYY-MM-DD`, ordered by date.
struct MarketDate: Swift.Comparable, Sendable {
    let year: Int
    let month: Int
    let day: Int

    var text: String {
        func pad(_ n: Int, _ width: Int) -> String {
            String(repeating: "0", count: max(0, width - String(n).count)) + String(n)
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    /// Days since 1970-01-01 (proleptic Gregorian).
    var ordinal: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func < (a: MarketDate, b: MarketDate) -> Bool { a.ordinal < b.ordinal }

    /// `YYYY-MM-DD` naming a day that exists; nil otherwise.
    static func parse(_ text: String) -> MarketDate? {
        let b = Array(text.utf8)
        guard b.count == 10, b[4] == 45, b[7] == 45 else { return nil }
        func number(_ r: Range<Int>) -> Int? {
            var n = 0
            for i in r {
                guard (48...57).contains(b[i]) else { return nil }
                n = n * 10 + Int(b[i] - 48)
            }
            return n
        }
        guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10), (1...12).contains(m), d >= 1 else {
            return nil
        }
        let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard d <= lengths[m - 1] else { return nil }
        return MarketDate(year: y, month: m, day: d)
    }

    /// The UTC day `days` before `date`.
    static func day(_ date: Date, minusDays days: Int) -> MarketDate? {
        let shifted = date.addingTimeInterval(-Double(days) * 86_400)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let c = calendar.dateComponents([.year, .month, .day], from: shifted)
        guard let y = c.year, let m = c.month, let d = c.day else { return nil }
        return MarketDate(year: y, month: m, day: d)
    }

    static func days(from: MarketDate, to: MarketDate) -> Int { to.ordinal - from.ordinal }
}
