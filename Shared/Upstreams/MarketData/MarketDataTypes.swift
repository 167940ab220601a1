import Contracts
import Runtime

/// A quote upstream. Callers see it only through `Quote.provider`.
public enum MarketDataProvider: String, Sendable, CaseIterable, Codable {
    case massive, yahoo
}

/// How fresh a provider's prices are (`Quote.freshness`).
public enum MarketDataFreshness: String, Sendable, CaseIterable {
    case realTime = "real-time"
    case delayed
    case endOfDay = "end-of-day"
    case unknown

    /// Parses `MASSIVE_MARKET_DATA_FRESHNESS`: `real-time`/`realtime`, `delayed`/`15-minute`/`15m`,
    /// `end-of-day`/`eod`; anything else is `unknown`.
    public init(setting: String?) {
        switch setting?.lowercased() {
        case "real-time", "realtime": self = .realTime
        case "delayed", "15-minute", "15m": self = .delayed
        case "end-of-day", "eod": self = .endOfDay
        default: self = .unknown
        }
    }
}

/// Look-back of a price history (Yahoo `range`): the wire's `PricePeriod`.
public typealias HistoryPeriod = PricePeriod

/// Bar size of a price history (Yahoo `interval`).
public enum HistoryInterval: String, Sendable, CaseIterable {
    case fifteenMinutes = "15m"
    case oneDay = "1d"
    case oneWeek = "1wk"
}

/// One close: `ts` in unix seconds (the contract's quote-history `ts`).
public struct HistoryPoint: Sendable, Equatable, Codable {
    public var ts: Int64
    public var close: Double

    public init(ts: Int64, close: Double) {
        self.ts = ts
        self.close = close
    }
}

/// A price history, oldest bar first, and the upstream that supplied it.
public struct PriceHistory: Sendable, Equatable, Codable {
    public var provider: MarketDataProvider
    public var bars: [PriceBar]

    public init(provider: MarketDataProvider, bars: [PriceBar]) {
        self.provider = provider
        self.bars = bars
    }
}

/// A ticker headline: `{title, url, source, publishedAt}` (ISO-8601).
public struct NewsItem: Sendable, Equatable, Codable {
    public var title: String
    public var url: String
    public var source: String
    public var publishedAt: String

    public init(title: String, url: String, source: String, publishedAt: String) {
        self.title = title
        self.url = url
        self.source = source
        self.publishedAt = publishedAt
    }
}

/// Headlines, newest first, and the wire label `/v1/news` echoes as `provider`:
/// `massive` on success, `error` when the news provider failed or is not configured (items empty).
public struct MarketNews: Sendable, Equatable {
    public var items: [NewsItem]
    public var provider: String

    public init(items: [NewsItem], provider: String) {
        self.items = items
        self.provider = provider
    }

    public var failed: Bool { provider == "error" }
}

/// Where quotes, history and news come from, and how long answers are kept.
public struct MarketDataConfiguration: Sendable {
    public static let defaultYahooBaseURL = "https://query1.finance.yahoo.com"
    public static let defaultMassiveBaseURL = "https://api.massive.com"

    /// Tried first for quotes. Default `massive`.
    public var primary: MarketDataProvider = .massive
    /// Tried when the primary gives no quote; only ever `yahoo`, and only when configured. Default none.
    public var fallback: MarketDataProvider?
    public var yahooBaseURL: String = MarketDataConfiguration.defaultYahooBaseURL
    public var massiveBaseURL: String = MarketDataConfiguration.defaultMassiveBaseURL
    /// Sent as `Authorization: Bearer …` (as the original does); nil disables Massive.
    public var massiveAPIKey: String?
    /// What the Massive subscription delivers; picks `Quote.freshness` and the disclaimer. Default `unknown`.
    public var massiveFreshness: MarketDataFreshness = .unknown
    /// Per-request timeout for quotes, history and news. Default 5 s.
    public var requestTimeout: Duration = .seconds(5)
    /// Quote cache per symbol, empty answers included. Default 30 s.
    public var quoteTTL: Duration = .seconds(30)
    /// History cache per symbol, period and interval, empty answers included. Default 30 min.
    var historyTTL: Duration = .seconds(30 * 60)
    /// News cache per ticker, successful answers only. Default 10 min.
    var newsTTL: Duration = .seconds(10 * 60)
    /// Ratios cache per ticker, found rows only. Default 1 h.
    var ratiosTTL: Duration = .seconds(60 * 60)

    public init(
        primary: MarketDataProvider = .massive, fallback: MarketDataProvider? = nil,
        yahooBaseURL: String = MarketDataConfiguration.defaultYahooBaseURL,
        massiveBaseURL: String = MarketDataConfiguration.defaultMassiveBaseURL, massiveAPIKey: String? = nil,
        massiveFreshness: MarketDataFreshness = .unknown, requestTimeout: Duration = .seconds(5)
    ) {
        self.primary = primary
        self.fallback = fallback
        self.yahooBaseURL = yahooBaseURL
        self.massiveBaseURL = massiveBaseURL
        self.massiveAPIKey = massiveAPIKey.flatMap { $0.isEmpty ? nil : $0 }
        self.massiveFreshness = massiveFreshness
        self.requestTimeout = requestTimeout
    }

    /// `MARKET_DATA_PRIMARY` (or `MARKET_DATA_PROVIDER`) `massive`|`yahoo`; `MARKET_DATA_FALLBACK_PROVIDER=yahoo`;
    /// `YAHOO_BASE_URL`, `MASSIVE_BASE_URL`, `MASSIVE_API_KEY`, `MASSIVE_MARKET_DATA_FRESHNESS`.
    public static func fromEnvironment(_ env: Environment) -> MarketDataConfiguration {
        let primaryName = (env.get("MARKET_DATA_PRIMARY") ?? env.get("MARKET_DATA_PROVIDER"))?.lowercased()
        let fallbackName = env.get("MARKET_DATA_FALLBACK_PROVIDER")?.lowercased()
        return MarketDataConfiguration(
            primary: primaryName.flatMap { MarketDataProvider(rawValue: $0.filter { !$0.isWhitespace }) } ?? .massive,
            fallback: fallbackName?.filter({ !$0.isWhitespace }) == "yahoo" ? .yahoo : nil,
            yahooBaseURL: env.get("YAHOO_BASE_URL", default: defaultYahooBaseURL),
            massiveBaseURL: env.get("MASSIVE_BASE_URL", default: defaultMassiveBaseURL),
            massiveAPIKey: env.get("MASSIVE_API_KEY").map { String($0.filter { !$0.isWhitespace }) },
            massiveFreshness: MarketDataFreshness(setting: env.get("MASSIVE_MARKET_DATA_FRESHNESS")))
    }
}

/// Ticker validation and URL encoding.
public enum MarketSymbol {
    /// `raw` trimmed and upper-cased when it then matches `^[A-Z][A-Z0-9.\-]{0,9}$`; nil otherwise.
    public static func normalize(_ raw: String) -> String? {
        var trimmed = Substring(raw)
        while let c = trimmed.first, c.isWhitespace { trimmed.removeFirst() }
        while let c = trimmed.last, c.isWhitespace { trimmed.removeLast() }
        guard trimmed.utf8.allSatisfy({ $0 < 128 }) else { return nil }  // ASCII only, before case mapping
        let s = trimmed.uppercased()
        let bytes = Array(s.utf8)
        guard (1...10).contains(bytes.count), let first = bytes.first, isUpper(first) else { return nil }
        for b in bytes.dropFirst() where !(isUpper(b) || isDigit(b) || b == UInt8(ascii: ".") || b == UInt8(ascii: "-"))
        {
            return nil
        }
        return s
    }

    /// `symbol` percent-encoded for a URL path segment.
    public static func pathSegment(_ symbol: String) -> String { percentEncoded(symbol) }

    /// Percent-encodes everything outside RFC 3986's unreserved set (for a path segment or a query value).
    static func percentEncoded(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            if isUpper(b) || isDigit(b) || (b >= 97 && b <= 122) || b == 45 || b == 46 || b == 95 || b == 126 {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%"
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(b >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(b & 0x0F)]))
            }
        }
        return out
    }

    private static func isUpper(_ b: UInt8) -> Bool { b >= 65 && b <= 90 }
    private static func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }
}
