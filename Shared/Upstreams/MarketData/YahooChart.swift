import Contracts
import Runtime

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Yahoo's chart endpoint (`/v7/finance/chart/<SYM>`): quote and history normalization.
enum YahooChart {
    static let disclaimer = "delayed by 15 min, source: Yahoo Finance"
    static let userAgent = "mapvest/0.1 (+https://mapvest.app)"

    /// price = `meta.regularMarketPrice`; previous = `meta.chartPreviousClose` ∥ `meta.previousClose` (both
    /// required); ts = `meta.regularMarketTime` (s) or now; name = shortName ∥ longName; currency default USD.
    static func quote(from body: [UInt8], symbol: String) -> Quote? {
        guard let chart = try? JSONDecoder().decode(Envelope.self, from: Data(body)),
            let meta = chart.chart?.result?.first??.meta,
            let price = meta.regularMarketPrice.finite,
            let previous = meta.chartPreviousClose.finite ?? meta.previousClose.finite
        else { return nil }
        let change = price - previous
        let ts = meta.regularMarketTime.finite.map { Date(timeIntervalSince1970: $0) } ?? Date()
        let name = [meta.shortName, meta.longName].lazy.compactMap { $0?.trimmedNonEmpty }.first
        return Quote(
            symbol: meta.symbol?.trimmedNonEmpty ?? symbol, price: price, change: change,
            changePct: previous != 0 ? change / previous * 100 : 0, currency: meta.currency?.trimmedNonEmpty ?? "USD",
            ts: Timestamp.iso8601(ts), disclaimer: disclaimer, name: name, provider: MarketDataProvider.yahoo.rawValue,
            freshness: MarketDataFreshness.delayed.rawValue)
    }

    /// Bars from `timestamp` and `indicators.quote[0]` (open, high, low, close, volume). When
    /// `indicators.adjclose[0].adjclose` is present the close is the adjusted one and open, high and low are scaled by
    /// the same factor. Bars without a positive close are skipped; fewer than two bars → nil.
    static func bars(from body: [UInt8]) -> [PriceBar]? {
        guard let chart = try? JSONDecoder().decode(Envelope.self, from: Data(body)),
            let result = chart.chart?.result?.first ?? nil,
            let timestamps = result.timestamp
        else { return nil }
        let quote = result.indicators?.quote?.first
        let adjusted = result.indicators?.adjclose?.first?.adjclose
        guard let closes = adjusted ?? quote?.close else { return nil }
        var bars: [PriceBar] = []
        for (i, (ts, close)) in zip(timestamps, closes).enumerated() {
            guard let ts, let close, close.isFinite, close > 0 else { continue }
            let raw = quote?.close?[safe: i]?.flatMap { $0 }.positive
            let factor = adjusted != nil ? raw.map { close / $0 } ?? 1 : 1
            func scaled(_ series: [Double?]?) -> Double? {
                series?[safe: i]?.flatMap { $0 }.positive.map { $0 * factor }
            }
            bars.append(
                PriceBar(
                    ts: ts, open: scaled(quote?.open), high: scaled(quote?.high), low: scaled(quote?.low), close: close,
                    volume: quote?.volume?[safe: i]?.flatMap { $0 }.finite.flatMap { $0 >= 0 ? $0 : nil }))
        }
        return bars.count >= 2 ? bars : nil
    }

    // MARK: - Wire types (every field optional; a wrong type counts as absent where it matters)

    struct Envelope: Decodable {
        struct Chart: Decodable { var result: [Result?]? }
        var chart: Chart?
    }

    struct Result: Decodable {
        var meta: Meta?
        var timestamp: [Int64?]?
        var indicators: Indicators?

        private enum Keys: String, CodingKey { case meta, timestamp, indicators }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            meta = try? c.decodeIfPresent(Meta.self, forKey: .meta)
            timestamp = try? c.decodeIfPresent([Int64?].self, forKey: .timestamp)
            indicators = try? c.decodeIfPresent(Indicators.self, forKey: .indicators)
        }
    }

    struct Meta: Decodable {
        var symbol: String?
        var currency: String?
        var regularMarketPrice: Double?
        var chartPreviousClose: Double?
        var previousClose: Double?
        var regularMarketTime: Double?
        var shortName: String?
        var longName: String?

        private enum Keys: String, CodingKey {
            case symbol, currency, regularMarketPrice, chartPreviousClose, previousClose, regularMarketTime
            case shortName, longName
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            symbol = try? c.decodeIfPresent(String.self, forKey: .symbol)
            currency = try? c.decodeIfPresent(String.self, forKey: .currency)
            regularMarketPrice = try? c.decodeIfPresent(Double.self, forKey: .regularMarketPrice)
            chartPreviousClose = try? c.decodeIfPresent(Double.self, forKey: .chartPreviousClose)
            previousClose = try? c.decodeIfPresent(Double.self, forKey: .previousClose)
            regularMarketTime = try? c.decodeIfPresent(Double.self, forKey: .regularMarketTime)
            shortName = try? c.decodeIfPresent(String.self, forKey: .shortName)
            longName = try? c.decodeIfPresent(String.self, forKey: .longName)
        }
    }

    struct Indicators: Decodable {
        struct Closes: Decodable {
            var open: [Double?]?
            var high: [Double?]?
            var low: [Double?]?
            var close: [Double?]?
            var volume: [Double?]?

            private enum Keys: String, CodingKey { case open, high, low, close, volume }
            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: Keys.self)
                open = try? c.decodeIfPresent([Double?].self, forKey: .open)
                high = try? c.decodeIfPresent([Double?].self, forKey: .high)
                low = try? c.decodeIfPresent([Double?].self, forKey: .low)
                close = try? c.decodeIfPresent([Double?].self, forKey: .close)
                volume = try? c.decodeIfPresent([Double?].self, forKey: .volume)
            }
        }
        struct AdjCloses: Decodable { var adjclose: [Double?]? }
        var quote: [Closes]?
        var adjclose: [AdjCloses]?
    }
}

extension Optional where Wrapped == Double {
    /// The value when present and finite.
    var finite: Double? {
        guard let v = self, v.isFinite else { return nil }
        return v
    }

    /// The value when present, finite and above zero (Massive reports 0 for "no data").
    var positive: Double? {
        guard let v = finite, v > 0 else { return nil }
        return v
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

extension String {
    var trimmedNonEmpty: String? {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return s.isEmpty ? nil : String(s)
    }
}
