/// Commands behind the market-data surface (docs/COMPATIBILITY.md#market-data-surface): the gateway validates the
/// query and applies the defaults; Rating answers from the market-data module. Cursors are opaque and passed on as
/// received.

/// `GET /v1/market-data/capabilities`.
public struct MarketCapabilitiesCommand: Codable, Sendable, Equatable {
    public static let name = "market-data.capabilities.get.v1"
    public init() {}
}

/// `GET /v1/market-data/aggregates`: `symbol` upper-cased; `from`/`to` real `YYYY-MM-DD` dates, `from` ≤ `to`.
public struct AggregatesCommand: Codable, Sendable, Equatable {
    public static let name = "market-data.aggregates.get.v1"
    public var symbol: String
    /// minute, hour, day, week, month, quarter or year.
    public var timespan: String
    /// 1…1000.
    public var multiplier: Int
    public var from: String
    public var to: String
    public var adjusted: Bool
    /// The `nextCursor` of an earlier page, unchanged.
    public var cursor: String?

    public init(
        symbol: String, timespan: String, multiplier: Int, from: String, to: String, adjusted: Bool,
        cursor: String? = nil
    ) {
        self.symbol = symbol
        self.timespan = timespan
        self.multiplier = multiplier
        self.from = from
        self.to = to
        self.adjusted = adjusted
        self.cursor = cursor
    }
}

/// `GET /v1/financials/ratios`: `ticker` a market ticker, `limit` 1…500.
public struct FinancialRatiosCommand: Codable, Sendable, Equatable {
    public static let name = "financials.ratios.get.v1"
    public var ticker: String
    public var limit: Int
    /// The `nextCursor` of an earlier page, unchanged.
    public var cursor: String?

    public init(ticker: String, limit: Int, cursor: String? = nil) {
        self.ticker = ticker
        self.limit = limit
        self.cursor = cursor
    }
}

/// `GET /v1/market-events`: a ticker, or both dates (at most 366 days apart); `limit` 1…500.
public struct MarketEventsCommand: Codable, Sendable, Equatable {
    public static let name = "market-events.get.v1"
    public var ticker: String?
    public var from: String?
    public var to: String?
    public var limit: Int

    public init(ticker: String?, from: String?, to: String?, limit: Int) {
        self.ticker = ticker
        self.from = from
        self.to = to
        self.limit = limit
    }
}

/// `GET /v1/options/chain`: the underlying's contract snapshots; `limit` 1…250.
public struct OptionsChainCommand: Codable, Sendable, Equatable {
    public static let name = "options.chain.get.v1"
    public var underlying: String
    public var expirationDate: String?
    /// call or put.
    public var contractType: String?
    public var strikePrice: Double?
    public var limit: Int
    public var cursor: String?

    public init(
        underlying: String, expirationDate: String? = nil, contractType: String? = nil, strikePrice: Double? = nil,
        limit: Int = 250, cursor: String? = nil
    ) {
        self.underlying = underlying
        self.expirationDate = expirationDate
        self.contractType = contractType
        self.strikePrice = strikePrice
        self.limit = limit
        self.cursor = cursor
    }
}

/// `GET /v1/options/contracts`: reference contracts; `limit` 1…1000.
public struct OptionContractsCommand: Codable, Sendable, Equatable {
    public static let name = "options.contracts.list.v1"
    public var underlying: String?
    /// An option ticker (`O:…`).
    public var ticker: String?
    public var contractType: String?
    public var expirationDate: String?
    public var asOf: String?
    public var strikePrice: Double?
    public var expired: Bool?
    public var limit: Int
    public var cursor: String?

    public init(
        underlying: String? = nil, ticker: String? = nil, contractType: String? = nil, expirationDate: String? = nil,
        asOf: String? = nil, strikePrice: Double? = nil, expired: Bool? = nil, limit: Int = 100, cursor: String? = nil
    ) {
        self.underlying = underlying
        self.ticker = ticker
        self.contractType = contractType
        self.expirationDate = expirationDate
        self.asOf = asOf
        self.strikePrice = strikePrice
        self.expired = expired
        self.limit = limit
        self.cursor = cursor
    }
}

/// `GET /v1/options/contracts/{ticker}`: one contract by option ticker.
public struct OptionContractCommand: Codable, Sendable, Equatable {
    public static let name = "options.contract.get.v1"
    public var ticker: String
    public init(ticker: String) { self.ticker = ticker }
}

/// `GET /v1/options/summary`: one contract's snapshot.
public struct OptionSummaryCommand: Codable, Sendable, Equatable {
    public static let name = "options.summary.get.v1"
    public var underlying: String
    public var contract: String
    public init(underlying: String, contract: String) {
        self.underlying = underlying
        self.contract = contract
    }
}

/// `GET /v1/options/bars`: one contract's bars, paged like aggregates.
public struct OptionBarsCommand: Codable, Sendable, Equatable {
    public static let name = "options.bars.get.v1"
    public var ticker: String
    public var from: String
    public var to: String
    public var multiplier: Int
    public var timespan: String
    public var adjusted: Bool
    public var cursor: String?

    public init(
        ticker: String, from: String, to: String, multiplier: Int, timespan: String, adjusted: Bool,
        cursor: String? = nil
    ) {
        self.ticker = ticker
        self.from = from
        self.to = to
        self.multiplier = multiplier
        self.timespan = timespan
        self.adjusted = adjusted
        self.cursor = cursor
    }
}
