import Contracts

/// A provider failure with the status the routes map (429 rate limited, 501 unsupported, 503 not configured, any
/// other upstream status or 502). Carries no upstream text: only the status and Massive's request id.
public struct MarketDataFailure: Error, Sendable, Equatable {
    public var status: Int
    public var requestId: String?

    public init(status: Int, requestId: String? = nil) {
        self.status = status
        self.requestId = requestId
    }

    /// No Massive key: the provider is not configured.
    public static let notConfigured = MarketDataFailure(status: 503)
    /// The provider has no such dataset (Yahoo).
    public static let unsupported = MarketDataFailure(status: 501)
    /// The provider answered, with nothing for a single-item query (status 0: never an HTTP status).
    public static let noResult = MarketDataFailure(status: 0)
}

/// One OHLCV bar: `ts` in unix seconds.
public struct AggregatePoint: Codable, Sendable, Equatable {
    public var ts: Int64
    public var open: Double
    public var high: Double
    public var low: Double
    public var close: Double
    public var volume: Double?
    public var vwap: Double?
    public var transactions: Double?
}

/// A page of rows and the cursor of the next one.
public struct MarketPage<Row: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    public var rows: [Row]
    public var nextCursor: String?
    public var requestId: String?
}

/// `GET /v1/market-data/aggregates`' answer.
public struct AggregatesResponse: Codable, Sendable, Equatable {
    public var symbol: String
    public var from: String
    public var to: String
    public var multiplier: Int
    public var timespan: String
    public var points: [AggregatePoint]
    public var nextCursor: String?
    public var requestId: String?
    public var sources: [Source]
}

/// One ratio row (upstream snake_case mapped to camelCase; non-finite numbers absent).
public struct FinancialRatio: Codable, Sendable, Equatable {
    public var ticker: String
    public var date: String?
    public var averageVolume: Double?
    public var cash: Double?
    public var cik: String?
    public var current: Double?
    public var debtToEquity: Double?
    public var dividendYield: Double?
    public var earningsPerShare: Double?
    public var enterpriseValue: Double?
    public var evToEbitda: Double?
    public var evToSales: Double?
    public var freeCashFlow: Double?
    public var marketCap: Double?
    public var price: Double?
    public var priceToBook: Double?
    public var priceToCashFlow: Double?
    public var priceToEarnings: Double?
    public var priceToFreeCashFlow: Double?
    public var priceToSales: Double?
    public var quick: Double?
    public var returnOnAssets: Double?
    public var returnOnEquity: Double?
}

/// `GET /v1/financials/ratios`' answer.
public struct FinancialRatiosResponse: Codable, Sendable, Equatable {
    public var ticker: String
    public var ratios: [FinancialRatio]
    public var nextCursor: String?
    public var requestId: String?
    public var sources: [Source]
}

/// A split, a dividend (Massive) or a partner corporate event (TMX).
public struct MarketEvent: Codable, Sendable, Equatable {
    public var id: String?
    public var ticker: String
    public var type: String
    public var date: String
    public var status: String?
    public var description: String?
    public var sourceUrl: String?
    public var provider: String
    public var companyName: String?
    public var isin: String?
    public var tradingVenue: String?
    public var tmxRecordId: String?
    /// The upstream row as received (Massive events only, as the original sends it).
    public var raw: JSONValue?
}

/// `GET /v1/market-events`' answer: newest first.
public struct MarketEventsResponse: Codable, Sendable, Equatable {
    public var ticker: String?
    public var events: [MarketEvent]
    public var tmxAvailable: Bool
    public var sources: [Source]
}

/// `GET /v1/market-data/capabilities`' answer.
public struct MarketDataCapabilities: Codable, Sendable, Equatable {
    public struct Dataset: Codable, Sendable, Equatable {
        public var supported: Bool
        /// primary, fallback or unconfigured.
        public var access: String
        public var note: String?
    }
    public struct Subscription: Codable, Sendable, Equatable {
        public var stocks: String?
        public var options: String?
        public var events: String?
    }
    public var provider: String
    public var configured: Bool
    public var freshness: String
    public var subscription: Subscription
    public var datasets: [String: Dataset]
}
