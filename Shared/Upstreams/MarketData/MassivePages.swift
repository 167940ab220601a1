import Contracts

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Massive's paged envelopes (`{status, request_id, results, next_url}`) read into the surface's rows: bars with all
/// of open/high/low/close, ratio rows with a ticker, numbers finite or absent. Pure: bytes in, rows out.
enum MassivePages {
    struct Envelope: Decodable {
        var status: String?
        var requestId: String?
        var nextURL: String?
        private enum Keys: String, CodingKey {
            case status
            case requestId = "request_id"
            case nextURL = "next_url"
        }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            status = try? c.decodeIfPresent(String.self, forKey: .status)
            requestId = try? c.decodeIfPresent(String.self, forKey: .requestId)
            nextURL = try? c.decodeIfPresent(String.self, forKey: .nextURL)
        }
        init() {}
    }

    /// The envelope's fields, empty when the body is not a JSON object.
    static func envelope(_ body: [UInt8]) -> Envelope {
        (try? JSONDecoder().decode(Envelope.self, from: Data(body))) ?? Envelope()
    }

    /// `results` as JSON objects: an array's object items, or a single object.
    static func results(_ body: [UInt8]) -> [[String: JSONValue]] {
        guard case .object(let root)? = try? JSONDecoder().decode(JSONValue.self, from: Data(body)) else { return [] }
        switch root["results"] {
        case .array(let items)?:
            return items.compactMap { if case .object(let o) = $0 { o } else { nil } }
        case .object(let o)?: return [o]
        default: return []
        }
    }

    /// The `cursor` query parameter of `next_url`, percent-decoded: the opaque cursor of the next page.
    static func cursor(fromNextURL url: String?) -> String? {
        guard let url, let q = url.firstIndex(of: "?") else { return nil }
        for pair in url[url.index(after: q)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == "cursor" else { continue }
            let value = percentDecoded(parts[1])
            return value.flatMap { $0.isEmpty ? nil : $0 }
        }
        return nil
    }

    /// `%XX` escapes and `+` decoded; nil on a broken escape or invalid UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var it = Array(text.utf8)[...]
        while let b = it.popFirst() {
            if b == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if b == UInt8(ascii: "%") {
                guard it.count >= 2, let hi = hex(it.removeFirst()), let lo = hex(it.removeFirst()) else { return nil }
                bytes.append(hi << 4 | lo)
            } else {
                bytes.append(b)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case 48...57: b - 48
        case 65...70: b - 55
        case 97...102: b - 87
        default: nil
        }
    }

    static func page<Row>(_ body: [UInt8], _ row: ([String: JSONValue]) -> Row?) -> MarketPage<Row> {
        let envelope = envelope(body)
        return MarketPage(
            rows: results(body).compactMap(row), nextCursor: cursor(fromNextURL: envelope.nextURL),
            requestId: envelope.requestId)
    }

    /// A bar from `{t (ms), o, h, l, c, v?, vw?, n?}`; nil unless t, o, h, l and c are finite numbers.
    static func bar(_ o: [String: JSONValue]) -> AggregatePoint? {
        guard let t = number(o["t"]), let open = number(o["o"]), let high = number(o["h"]), let low = number(o["l"]),
            let close = number(o["c"]), abs(t) < 1e17
        else { return nil }
        return AggregatePoint(
            ts: Int64((t / 1000).rounded(.down)), open: open, high: high, low: low, close: close,
            volume: number(o["v"]), vwap: number(o["vw"]), transactions: number(o["n"]))
    }

    /// A ratio row; nil without a ticker.
    static func ratio(_ o: [String: JSONValue]) -> FinancialRatio? {
        guard let ticker = string(o["ticker"]) else { return nil }
        return FinancialRatio(
            ticker: ticker, date: string(o["date"]), averageVolume: number(o["average_volume"]),
            cash: number(o["cash"]), cik: string(o["cik"]), current: number(o["current"]),
            debtToEquity: number(o["debt_to_equity"]), dividendYield: number(o["dividend_yield"]),
            earningsPerShare: number(o["earnings_per_share"]), enterpriseValue: number(o["enterprise_value"]),
            evToEbitda: number(o["ev_to_ebitda"]), evToSales: number(o["ev_to_sales"]),
            freeCashFlow: number(o["free_cash_flow"]), marketCap: number(o["market_cap"]), price: number(o["price"]),
            priceToBook: number(o["price_to_book"]), priceToCashFlow: number(o["price_to_cash_flow"]),
            priceToEarnings: number(o["price_to_earnings"]), priceToFreeCashFlow: number(o["price_to_free_cash_flow"]),
            priceToSales: number(o["price_to_sales"]), quick: number(o["quick"]),
            returnOnAssets: number(o["return_on_assets"]), returnOnEquity: number(o["return_on_equity"]))
    }

    static func number(_ value: JSONValue?) -> Double? {
        guard case .number(let n)? = value, n.isFinite else { return nil }
        return n
    }

    static func string(_ value: JSONValue?) -> String? {
        guard case .string(let s)? = value, !s.isEmpty else { return nil }
        return s
    }
}
