/// `GET /v1/rating/{ticker}` wire types (docs/COMPATIBILITY.md#rating). Every key of `RatingResponse` is always
/// present; `rating` and `probabilities` are `null` when there is no rating.

/// `strong_buy | buy | hold | sell | strong_sell`, in the score rubric's order from `strongSell`.
public enum RatingAction: String, Codable, Sendable, CaseIterable {
    case strongSell = "strong_sell"
    case sell
    case hold
    case buy
    case strongBuy = "strong_buy"

    /// The one_line label: `Strong buy`, `Buy`, `Hold`, `Sell`, `Strong sell`.
    public var label: String {
        switch self {
        case .strongSell: "Strong sell"
        case .sell: "Sell"
        case .hold: "Hold"
        case .buy: "Buy"
        case .strongBuy: "Strong buy"
        }
    }
}

/// `strong | normal | weak`: the margin between the two most likely actions.
public enum RatingStrength: String, Codable, Sendable, CaseIterable {
    case strong, normal, weak
}

/// `ok | insufficient_signal`.
public enum RatingStatus: String, Codable, Sendable {
    case ok
    case insufficientSignal = "insufficient_signal"
}

/// The evidence families a rating weighs, in canonical order.
public enum RatingDriverName: String, Codable, Sendable, CaseIterable {
    case valuation, momentum, fundamentals, narrative, macro
    case localDemand = "local_demand"
    case peerForecast = "peer_forecast"

    /// The label used in `one_line`.
    public var label: String {
        switch self {
        case .valuation: "valuation"
        case .momentum: "momentum"
        case .fundamentals: "fundamentals"
        case .narrative: "news flow"
        case .macro: "macro"
        case .localDemand: "demand pulse"
        case .peerForecast: "peer forecast"
        }
    }
}

/// `up | down | flat`.
public enum RatingDirection: String, Codable, Sendable {
    case up, down, flat
}

/// `PrismRecommendation`-shaped rating (a strict object).
public struct Rating: Codable, Sendable, Equatable {
    public var action: RatingAction
    public var strength: RatingStrength
    public var conviction: Double
    public var oneLine: String

    enum CodingKeys: String, CodingKey {
        case action, strength, conviction
        case oneLine = "one_line"
    }

    public init(action: RatingAction, strength: RatingStrength, conviction: Double, oneLine: String) {
        self.action = action
        self.strength = strength
        self.conviction = conviction
        self.oneLine = oneLine
    }
}

/// Probability per action, each in [0, 1], summing to 1 (3 dp).
public struct RatingProbabilities: Codable, Sendable, Equatable {
    public var strongSell: Double
    public var sell: Double
    public var hold: Double
    public var buy: Double
    public var strongBuy: Double

    enum CodingKeys: String, CodingKey {
        case strongSell = "strong_sell"
        case sell, hold, buy
        case strongBuy = "strong_buy"
    }

    public init(strongSell: Double, sell: Double, hold: Double, buy: Double, strongBuy: Double) {
        self.strongSell = strongSell
        self.sell = sell
        self.hold = hold
        self.buy = buy
        self.strongBuy = strongBuy
    }

    public subscript(action: RatingAction) -> Double {
        switch action {
        case .strongSell: strongSell
        case .sell: sell
        case .hold: hold
        case .buy: buy
        case .strongBuy: strongBuy
        }
    }
}

public struct RatingDriver: Codable, Sendable, Equatable {
    public var name: RatingDriverName
    public var direction: RatingDirection
    public var weight: Double

    public init(name: RatingDriverName, direction: RatingDirection, weight: Double) {
        self.name = name
        self.direction = direction
        self.weight = weight
    }
}

/// One piece of evidence: `source` (`quote`, `ratios`, `synthesis_memo`, …), a ≤ 300-character summary, a ref.
public struct RatingEvidence: Codable, Sendable, Equatable {
    public var source: String
    public var summary: String
    public var ref: String?

    public init(source: String, summary: String, ref: String? = nil) {
        self.source = source
        self.summary = summary
        self.ref = ref
    }
}

public struct RatingResponse: Codable, Sendable, Equatable {
    /// The one disclaimer every rating carries, verbatim.
    public static let disclaimer = "AI-generated research signal, not investment advice."

    public var ticker: String
    public var status: RatingStatus
    public var rating: Rating?
    public var probabilities: RatingProbabilities?
    public var confidence: Double
    public var drivers: [RatingDriver]
    public var evidence: [RatingEvidence]
    public var inputsUsed: [String]
    public var asOf: String
    public var disclaimer: String

    enum CodingKeys: String, CodingKey {
        case ticker, status, rating, probabilities, confidence, drivers, evidence
        case inputsUsed = "inputs_used"
        case asOf = "as_of"
        case disclaimer
    }

    public init(
        ticker: String, status: RatingStatus, rating: Rating?, probabilities: RatingProbabilities?, confidence: Double,
        drivers: [RatingDriver], evidence: [RatingEvidence], inputsUsed: [String], asOf: String
    ) {
        self.ticker = ticker
        self.status = status
        self.rating = rating
        self.probabilities = probabilities
        self.confidence = confidence
        self.drivers = drivers
        self.evidence = evidence
        self.inputsUsed = inputsUsed
        self.asOf = asOf
        self.disclaimer = Self.disclaimer
    }

    /// `rating` and `probabilities` are written as `null` when absent (the contract's nullable keys).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(ticker, forKey: .ticker)
        try c.encode(status, forKey: .status)
        if let rating { try c.encode(rating, forKey: .rating) } else { try c.encodeNil(forKey: .rating) }
        if let probabilities {
            try c.encode(probabilities, forKey: .probabilities)
        } else {
            try c.encodeNil(forKey: .probabilities)
        }
        try c.encode(confidence, forKey: .confidence)
        try c.encode(drivers, forKey: .drivers)
        try c.encode(evidence, forKey: .evidence)
        try c.encode(inputsUsed, forKey: .inputsUsed)
        try c.encode(asOf, forKey: .asOf)
        try c.encode(disclaimer, forKey: .disclaimer)
    }
}

/// The command behind `GET /v1/rating/{ticker}`; `ticker` is already trimmed, upper-cased and validated.
public struct RatingCommand: Codable, Sendable, Equatable {
    public static let name = "rating.get.v1"
    public var ticker: String
    public init(ticker: String) { self.ticker = ticker }
}

/// `mapvest.rating.computed` (schema 1): a rating was computed (not served from the cache).
public struct RatingComputedEvent: Codable, Sendable, Equatable {
    public static let type = "mapvest.rating.computed"
    public static let schemaVersion = 1

    public var ticker: String
    public var status: RatingStatus
    public var action: RatingAction?
    public var strength: RatingStrength?
    public var confidence: Double
    public var inputsUsed: [String]
    public var latencyMs: Int

    public init(
        ticker: String, status: RatingStatus, action: RatingAction?, strength: RatingStrength?, confidence: Double,
        inputsUsed: [String], latencyMs: Int
    ) {
        self.ticker = ticker
        self.status = status
        self.action = action
        self.strength = strength
        self.confidence = confidence
        self.inputsUsed = inputsUsed
        self.latencyMs = latencyMs
    }
}
