import Contracts
import Runtime

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Massive (`/v2/snapshot/locale/us/markets/stocks/tickers/<SYM>`, `/v2/reference/news`) normalization.
enum MassiveSnapshot {
    static func disclaimer(for freshness: MarketDataFreshness) -> String {
        switch freshness {
        case .realTime: "real-time, source: Massive"
        case .delayed: "delayed, source: Massive"
        case .endOfDay: "end-of-day, source: Massive"
        case .unknown: "freshness depends on Massive subscription, source: Massive"
        }
    }

    /// price = `lastTrade.p` ∥ mid of `lastQuote.p`/`lastQuote.P` (both needed) ∥ `day.c`; previous = `prevDay.c`.
    /// Zero means "no data" in snapshots, so only positive numbers count. ts = `lastTrade.t` ∥ `lastQuote.t` ∥
    /// `updated` ∥ `day.t` (ns, µs, ms or s, told apart by magnitude). A body with `status: "ERROR"` is no quote.
    static func quote(from body: [UInt8], symbol: String, freshness: MarketDataFreshness) -> Quote? {
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(body)),
            envelope.status?.uppercased() != "ERROR", let ticker = envelope.ticker
        else { return nil }
        let mid: Double? = {
            guard let bid = ticker.lastQuote?.p.positive, let ask = ticker.lastQuote?.P.positive else { return nil }
            return (bid + ask) / 2
        }()
        guard let price = ticker.lastTrade?.p.positive ?? mid ?? ticker.day?.c.positive,
            let previous = ticker.prevDay?.c.positive
        else { return nil }
        let change = price - previous
        let stamp = [ticker.lastTrade?.t, ticker.lastQuote?.t, ticker.updated, ticker.day?.t].lazy
            .compactMap { $0.positive }.first
        return Quote(
            symbol: symbol, price: price, change: change, changePct: change / previous * 100,
            currency: ticker.currencyName?.trimmedNonEmpty?.uppercased() ?? "USD",
            ts: Timestamp.iso8601(stamp.map(date(fromEpoch:)) ?? Date()), disclaimer: disclaimer(for: freshness),
            name: ticker.name?.trimmedNonEmpty, provider: MarketDataProvider.massive.rawValue,
            freshness: freshness.rawValue)
    }

    /// News mapping: title ← `title`, url ← `article_url` (http/https only), source ← `publisher.name` (default
    /// "Massive"), publishedAt ← `published_utc` re-rendered as ISO-8601 ms (unparseable → now). Items without a
    /// title or URL are skipped; the result is sorted newest first. Nil when the body is not a news response.
    static func news(from body: [UInt8]) -> [NewsItem]? {
        guard let envelope = try? JSONDecoder().decode(NewsEnvelope.self, from: Data(body)),
            envelope.status?.uppercased() != "ERROR"
        else { return nil }
        let now = Date()
        var dated: [(Date, NewsItem)] = []
        for item in envelope.results ?? [] {
            guard let title = item.title?.trimmedNonEmpty, let url = item.articleURL?.trimmedNonEmpty,
                url.lowercased().hasPrefix("https://") || url.lowercased().hasPrefix("http://")
            else { continue }
            let published = item.publishedUTC.flatMap(parseISO8601) ?? now
            dated.append(
                (
                    published,
                    NewsItem(
                        title: title, url: url, source: item.publisher?.name?.trimmedNonEmpty ?? "Massive",
                        publishedAt: Timestamp.iso8601(published))
                ))
        }
        return dated.sorted { $0.0 > $1.0 }.map(\.1)
    }

    /// Seconds, milliseconds, microseconds or nanoseconds since the epoch, told apart by magnitude.
    static func date(fromEpoch value: Double) -> Date {
        let seconds: Double =
            value >= 1e17 ? value / 1e9 : value >= 1e14 ? value / 1e6 : value >= 1e11 ? value / 1e3 : value
        return Date(timeIntervalSince1970: seconds)
    }

    static func parseISO8601(_ text: String) -> Date? {
        if let d = try? Date(text, strategy: Date.ISO8601FormatStyle()) { return d }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    // MARK: - Wire types

    struct Envelope: Decodable {
        var status: String?
        var ticker: Ticker?

        private enum Keys: String, CodingKey { case status, ticker }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            status = try? c.decodeIfPresent(String.self, forKey: .status)
            ticker = try? c.decodeIfPresent(Ticker.self, forKey: .ticker)
        }
    }

    struct Ticker: Decodable {
        struct Bar: Decodable {
            var c: Double?
            var t: Double?
            private enum Keys: String, CodingKey { case c, t }
            init(from decoder: any Decoder) throws {
                let k = try decoder.container(keyedBy: Keys.self)
                c = try? k.decodeIfPresent(Double.self, forKey: .c)
                t = try? k.decodeIfPresent(Double.self, forKey: .t)
            }
        }
        struct Trade: Decodable {
            var p: Double?
            var t: Double?
            private enum Keys: String, CodingKey { case p, t }
            init(from decoder: any Decoder) throws {
                let k = try decoder.container(keyedBy: Keys.self)
                p = try? k.decodeIfPresent(Double.self, forKey: .p)
                t = try? k.decodeIfPresent(Double.self, forKey: .t)
            }
        }
        /// `p` bid, `P` ask.
        struct QuoteSide: Decodable {
            var p: Double?
            var P: Double?
            var t: Double?
            private enum Keys: String, CodingKey { case p, P, t }
            init(from decoder: any Decoder) throws {
                let k = try decoder.container(keyedBy: Keys.self)
                p = try? k.decodeIfPresent(Double.self, forKey: .p)
                P = try? k.decodeIfPresent(Double.self, forKey: .P)
                t = try? k.decodeIfPresent(Double.self, forKey: .t)
            }
        }

        var day: Bar?
        var prevDay: Bar?
        var lastTrade: Trade?
        var lastQuote: QuoteSide?
        var updated: Double?
        var name: String?
        var currencyName: String?

        private enum Keys: String, CodingKey { case day, prevDay, lastTrade, lastQuote, updated, name, currencyName }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            day = try? c.decodeIfPresent(Bar.self, forKey: .day)
            prevDay = try? c.decodeIfPresent(Bar.self, forKey: .prevDay)
            lastTrade = try? c.decodeIfPresent(Trade.self, forKey: .lastTrade)
            lastQuote = try? c.decodeIfPresent(QuoteSide.self, forKey: .lastQuote)
            updated = try? c.decodeIfPresent(Double.self, forKey: .updated)
            name = try? c.decodeIfPresent(String.self, forKey: .name)
            currencyName = try? c.decodeIfPresent(String.self, forKey: .currencyName)
        }
    }

    struct NewsEnvelope: Decodable {
        struct Item: Decodable {
            struct Publisher: Decodable { var name: String? }
            var title: String?
            var articleURL: String?
            var publisher: Publisher?
            var publishedUTC: String?

            private enum Keys: String, CodingKey {
                case title, articleURL = "article_url", publisher, publishedUTC = "published_utc"
            }
            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: Keys.self)
                title = try? c.decodeIfPresent(String.self, forKey: .title)
                articleURL = try? c.decodeIfPresent(String.self, forKey: .articleURL)
                publisher = try? c.decodeIfPresent(Publisher.self, forKey: .publisher)
                publishedUTC = try? c.decodeIfPresent(String.self, forKey: .publishedUTC)
            }
        }
        var status: String?
        var results: [Item]?
    }
}
