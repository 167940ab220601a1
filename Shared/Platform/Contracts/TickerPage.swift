/// The ticker page's wire types: `GET /v1/quote`, `/v1/quote-history`, `/v1/chart/{type}`, `/v1/analysis/{ticker}`,
/// `/v1/prism/{ticker}/summary` and `/v1/situate/{ticker}/summary` (answered by Rating, which owns market data).

/// A price-history look-back (`QuoteHistoryResponse.period`).
public enum PricePeriod: String, Codable, Sendable, CaseIterable {
    case fiveDays = "5d"
    case oneMonth = "1mo"
    case threeMonths = "3mo"
    case sixMonths = "6mo"
    case oneYear = "1y"
    case twoYears = "2y"

    /// `?period=` trimmed, with the original's aliases (`1m`/`1M` → `1mo`, `1Y` → `1y`, …); nil when unknown.
    public init?(query raw: String) {
        let trimmed = raw.trimmingWhitespace
        let aliases: [String: PricePeriod] = [
            "1m": .oneMonth, "1M": .oneMonth, "3m": .threeMonths, "3M": .threeMonths, "6m": .sixMonths,
            "6M": .sixMonths, "1Y": .oneYear, "2Y": .twoYears, "5D": .fiveDays,
        ]
        guard
            let period = PricePeriod(rawValue: trimmed) ?? aliases[trimmed]
                ?? PricePeriod(rawValue: trimmed.lowercased())
        else { return nil }
        self = period
    }

    public static let validationError = "period must be 5d, 1mo, 3mo, 6mo, 1y or 2y"
}

/// A bar size (`QuoteHistoryResponse.interval`).
public enum PriceInterval: String, Codable, Sendable, CaseIterable {
    case fifteenMinutes = "15m"
    case oneDay = "1d"
    case oneWeek = "1w"

    /// `?interval=` trimmed and lower-cased: `15m`/`15min`, `1d`, `1w`/`1wk`; nil when unknown.
    public init?(query raw: String) {
        switch raw.trimmingWhitespace.lowercased() {
        case "15m", "15min": self = .fifteenMinutes
        case "1d": self = .oneDay
        case "1w", "1wk": self = .oneWeek
        default: return nil
        }
    }

    public static let validationError = "interval must be 15m, 1d, or 1w"
}

/// `GET /v1/chart/{type}` types: the four we can draw ourselves and the Underlying Analyzer's own.
public enum ChartType: String, Codable, Sendable, CaseIterable {
    case price, regression, ridge, auction
    case performance
    case ridgeGrowth = "ridge-growth"
    case flowCompass = "flow-compass"
    case torque, portfolio, volatility

    /// The path segment trimmed, lower-cased, `_` → `-`; nil when unknown.
    public init?(path raw: String) {
        let name = raw.trimmingWhitespace.lowercased().replacingUnderscores
        guard let type = ChartType(rawValue: name) else { return nil }
        self = type
    }

    /// The Underlying Analyzer's chart name (`POST /api/charts/<name>`); nil for `price`, which only we draw.
    public var underlyingName: String? {
        switch self {
        case .price: nil
        case .ridge, .ridgeGrowth: "ridge-growth"
        default: rawValue
        }
    }

    /// The period when none is asked: auction 1mo, torque 2y, everything else 1y (as the original).
    public var defaultPeriod: PricePeriod {
        switch self {
        case .auction: .oneMonth
        case .torque: .twoYears
        default: .oneYear
        }
    }

    public static let validationError =
        "unsupported chart type (use " + ChartType.allCases.map(\.rawValue).joined(separator: "|") + ")"
}

/// The command behind `GET /v1/quote`; `symbol` trimmed and non-empty.
public struct QuoteCommand: Codable, Sendable, Equatable {
    public static let name = "quote.get.v1"
    public var symbol: String
    public init(symbol: String) { self.symbol = symbol }
}

/// `{quote}`.
public struct QuoteResponse: Codable, Sendable, Equatable {
    public var quote: Quote
    public init(quote: Quote) { self.quote = quote }
}

/// The command behind `GET /v1/quote-history`; `symbol` trimmed, upper-cased, non-empty.
public struct QuoteHistoryCommand: Codable, Sendable, Equatable {
    public static let name = "quote-history.get.v1"
    public var symbol: String
    public var period: PricePeriod
    public var interval: PriceInterval

    public init(symbol: String, period: PricePeriod, interval: PriceInterval) {
        self.symbol = symbol
        self.period = period
        self.interval = interval
    }
}

/// One price bar (a quote-history point): `ts` in unix seconds and the close always (adjusted when the provider
/// adjusts); open, high, low and volume when the provider has them.
public struct PriceBar: Codable, Sendable, Equatable {
    public var ts: Int64
    public var open: Double?
    public var high: Double?
    public var low: Double?
    public var close: Double
    public var volume: Double?

    public init(
        ts: Int64, open: Double? = nil, high: Double? = nil, low: Double? = nil, close: Double, volume: Double? = nil
    ) {
        self.ts = ts
        self.open = open
        self.high = high
        self.low = low
        self.close = close
        self.volume = volume
    }
}

public struct QuoteHistoryResponse: Codable, Sendable, Equatable {
    public var ticker: String
    public var period: PricePeriod
    public var interval: PriceInterval
    public var points: [PriceBar]
    public var sources: [Source]

    public init(ticker: String, period: PricePeriod, interval: PriceInterval, points: [PriceBar], sources: [Source]) {
        self.ticker = ticker
        self.period = period
        self.interval = interval
        self.points = points
        self.sources = sources
    }
}

/// The command behind `GET /v1/chart/{type}`; `ticker` validated like the rating's, `month` 1…12.
public struct ChartCommand: Codable, Sendable, Equatable {
    public static let name = "chart.get.v1"
    public var type: ChartType
    public var ticker: String
    public var period: PricePeriod
    public var interval: PriceInterval
    public var month: Int?

    public init(type: ChartType, ticker: String, period: PricePeriod, interval: PriceInterval, month: Int? = nil) {
        self.type = type
        self.ticker = ticker
        self.period = period
        self.interval = interval
        self.month = month
    }
}

/// `image {mime, data (base64), filename?}`.
public struct ChartImage: Codable, Sendable, Equatable {
    public var mime: String
    public var data: String
    public var filename: String?

    public init(mime: String, data: String, filename: String? = nil) {
        self.mime = mime
        self.data = data
        self.filename = filename
    }
}

/// Auction levels: point of control, value-area high and low.
public struct ChartLevels: Codable, Sendable, Equatable {
    public var poc: Double?
    public var vah: Double?
    public var val: Double?

    public init(poc: Double?, vah: Double?, val: Double?) {
        self.poc = poc
        self.vah = vah
        self.val = val
    }
}

public struct ChartResponse: Codable, Sendable, Equatable {
    public var ticker: String
    public var type: String
    public var period: String
    public var interval: String?
    public var image: ChartImage
    public var levels: ChartLevels?
    public var meta: [String: JSONValue]?
    /// Who supplied the prices (`yahoo`, `massive`) or, for an Underlying chart, what it names.
    public var provider: String?
    public var providerNote: String?
    public var sourceUrl: String?

    public init(
        ticker: String, type: String, period: String, interval: String?, image: ChartImage, levels: ChartLevels?,
        meta: [String: JSONValue]?, provider: String?, providerNote: String?, sourceUrl: String?
    ) {
        self.ticker = ticker
        self.type = type
        self.period = period
        self.interval = interval
        self.image = image
        self.levels = levels
        self.meta = meta
        self.provider = provider
        self.providerNote = providerNote
        self.sourceUrl = sourceUrl
    }
}

/// The command behind `GET /v1/analysis/{ticker}`.
public struct AnalysisCommand: Codable, Sendable, Equatable {
    public static let name = "analysis.get.v1"
    public var ticker: String
    public init(ticker: String) { self.ticker = ticker }
}

/// The Underlying Analyzer's snapshot, normalized (`AnalysisSnapshot`); `marketCap` and `trailingPe` are a string
/// or a number, as upstream sends them.
public struct AnalysisSnapshot: Codable, Sendable, Equatable {
    public var ticker: String
    public var name: String?
    public var sector: String?
    public var industry: String?
    public var price: Double?
    public var change: Double?
    public var changePercent: Double?
    public var marketCap: JSONValue?
    public var trailingPe: JSONValue?
    public var annualVolatility: Double?
    public var fiftyTwoWeekHigh: Double?
    public var fiftyTwoWeekLow: Double?
    public var brief: String?
    public var briefProvider: String?
    public var sourceUrl: String?

    public init(ticker: String) { self.ticker = ticker }
}

/// Which stored packet a summary reads.
public enum ResearchEngine: String, Codable, Sendable, CaseIterable {
    case prism, situate

    public var label: String {
        switch self {
        case .prism: "Prism"
        case .situate: "Situate"
        }
    }
}

/// The command behind `GET /v1/prism/{ticker}/summary` and `GET /v1/situate/{ticker}/summary`.
public struct ResearchSummaryCommand: Codable, Sendable, Equatable {
    public static let name = "research-summary.get.v1"
    public var engine: ResearchEngine
    public var ticker: String

    public init(engine: ResearchEngine, ticker: String) {
        self.engine = engine
        self.ticker = ticker
    }

    /// Trimmed and upper-cased, matching `^[A-Z][A-Z0-9.:-]{0,15}$` (the engines also read `X:BTCUSD`, `C:EURUSD`).
    public static func symbol(_ raw: String) -> String? {
        let s = raw.trimmingWhitespace.uppercased()
        let bytes = Array(s.utf8)
        guard (1...16).contains(bytes.count), let first = bytes.first, (65...90).contains(first) else { return nil }
        let allowed: (UInt8) -> Bool = {
            (65...90).contains($0) || (48...57).contains($0) || [46, 58, 45].contains($0)
        }
        return bytes.dropFirst().allSatisfy(allowed) ? s : nil
    }
}

extension String {
    var trimmingWhitespace: String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }

    var replacingUnderscores: String { String(map { $0 == "_" ? "-" : $0 }) }
}
