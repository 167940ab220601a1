import Contracts

/// An option contract's reference data.
public struct OptionContract: Codable, Sendable, Equatable {
    public var ticker: String
    public var underlyingTicker: String?
    /// call, put or other.
    public var contractType: String?
    public var expirationDate: String?
    public var strikePrice: Double?
    /// american, bermudan or european.
    public var exerciseStyle: String?
    public var sharesPerContract: Double?
    public var primaryExchange: String?
    public var cfi: String?
}

/// A contract's snapshot: its reference data plus Greeks, IV, open interest, last quote and trade (timestamps in
/// unix seconds) and the day's bar.
public struct OptionSnapshot: Codable, Sendable, Equatable {
    public struct Greeks: Codable, Sendable, Equatable {
        public var delta: Double?
        public var gamma: Double?
        public var theta: Double?
        public var vega: Double?
    }
    public struct LastQuote: Codable, Sendable, Equatable {
        public var bid: Double?
        public var ask: Double?
        public var bidSize: Double?
        public var askSize: Double?
        public var ts: Int64?
    }
    public struct LastTrade: Codable, Sendable, Equatable {
        public var price: Double?
        public var size: Double?
        public var ts: Int64?
    }
    public struct Day: Codable, Sendable, Equatable {
        public var open: Double?
        public var high: Double?
        public var low: Double?
        public var close: Double?
        public var volume: Double?
    }
    public var ticker: String
    public var underlyingTicker: String?
    public var contractType: String?
    public var expirationDate: String?
    public var strikePrice: Double?
    public var exerciseStyle: String?
    public var sharesPerContract: Double?
    public var primaryExchange: String?
    public var cfi: String?
    public var breakEvenPrice: Double?
    public var impliedVolatility: Double?
    public var openInterest: Double?
    public var greeks: Greeks?
    public var quote: LastQuote?
    public var trade: LastTrade?
    public var day: Day?
}

/// `GET /v1/options/chain`'s answer.
public struct OptionsChainResponse: Codable, Sendable, Equatable {
    public var underlyingTicker: String
    public var contracts: [OptionSnapshot]
    public var nextCursor: String?
    public var requestId: String?
    public var sources: [Source]
}

/// `GET /v1/options/contracts`' answer.
public struct OptionContractsResponse: Codable, Sendable, Equatable {
    public var contracts: [OptionContract]
    public var nextCursor: String?
    public var requestId: String?
    public var sources: [Source]
}

/// `GET /v1/options/contracts/{ticker}`'s answer.
public struct OptionContractResponse: Codable, Sendable, Equatable {
    public var contract: OptionContract
    public var sources: [Source]
}

/// `GET /v1/options/summary`'s answer.
public struct OptionSummaryResponse: Codable, Sendable, Equatable {
    public var underlyingTicker: String
    public var contractTicker: String
    public var summary: OptionSnapshot
    public var sources: [Source]
}

/// `GET /v1/options/bars`' answer.
public struct OptionBarsResponse: Codable, Sendable, Equatable {
    public var contractTicker: String
    public var from: String
    public var to: String
    public var multiplier: Int
    public var timespan: String
    public var points: [AggregatePoint]
    public var nextCursor: String?
    public var requestId: String?
    public var sources: [Source]
}
