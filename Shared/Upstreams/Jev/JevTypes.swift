#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One question in a `systemone` request (docs/COMPATIBILITY.md#jev).
public enum JevQuestion: Sendable, Equatable, Encodable {
    /// A calibrated yes/no probability.
    case noul(instructions: String)
    /// One label out of `labels`; sent as `criteria: {label: null, …}`.
    case choice(instructions: String, labels: [String])
    /// A position on an ordered rubric; sent as `criteria: [labels in order]`.
    case score(instructions: String, criteria: [String])

    private enum Keys: String, CodingKey { case type, instructions, criteria }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        switch self {
        case .noul(let instructions):
            try c.encode("noul", forKey: .type)
            try c.encode(instructions, forKey: .instructions)
        case .choice(let instructions, let labels):
            try c.encode("choice", forKey: .type)
            try c.encode(instructions, forKey: .instructions)
            var criteria = c.nestedContainer(keyedBy: JevDynamicKey.self, forKey: .criteria)
            for label in labels { try criteria.encodeNil(forKey: JevDynamicKey(label)) }
        case .score(let instructions, let criteria):
            try c.encode("score", forKey: .type)
            try c.encode(instructions, forKey: .instructions)
            try c.encode(criteria, forKey: .criteria)
        }
    }
}

/// A `choice` answer: the chosen label, per-label probabilities and a confidence in [0, 1].
public struct JevChoiceAnswer: Sendable, Equatable {
    public var choice: String
    public var probabilities: [String: Double]
    public var confidence: Double

    public init(choice: String, probabilities: [String: Double], confidence: Double) {
        self.choice = choice
        self.probabilities = probabilities
        self.confidence = confidence
    }

    /// True when `confidence` reaches `JevGate.confidenceThreshold` (0.55).
    public var isConfident: Bool { confidence >= JevGate.confidenceThreshold }
}

/// A `score` answer: the rubric position, optional legend, probabilities (keyed by label or index) and confidence.
public struct JevScoreAnswer: Sendable, Equatable {
    public var score: Double
    /// The legend when it was a flat string map; nil otherwise.
    public var legend: [String: String]?
    public var probabilities: [String: Double]
    public var confidence: Double

    public init(score: Double, legend: [String: String]? = nil, probabilities: [String: Double], confidence: Double) {
        self.score = score
        self.legend = legend
        self.probabilities = probabilities
        self.confidence = confidence
    }

    /// True when `confidence` reaches `JevGate.confidenceThreshold` (0.55).
    public var isConfident: Bool { confidence >= JevGate.confidenceThreshold }
}

/// One typed answer.
public enum JevAnswer: Sendable, Equatable {
    case noul(Double)
    case choice(JevChoiceAnswer)
    case score(JevScoreAnswer)
}

/// Token counts reported by Jev (0 when absent).
public struct JevUsage: Sendable, Equatable {
    public var inputTokens: Int
    public var outputTokens: Int

    public init(inputTokens: Int = 0, outputTokens: Int = 0) {
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
    }
}

/// Every answer of one batch, keyed by question id.
public struct JevAnswers: Sendable, Equatable {
    public var answers: [String: JevAnswer]
    public var model: String?
    public var usage: JevUsage

    public init(answers: [String: JevAnswer], model: String? = nil, usage: JevUsage = JevUsage()) {
        self.answers = answers
        self.model = model
        self.usage = usage
    }

    public subscript(id: String) -> JevAnswer? { answers[id] }

    /// The `noul` probability for `id`, or nil when missing or of another type.
    public func noul(_ id: String) -> Double? {
        if case .noul(let p)? = answers[id] { return p }
        return nil
    }

    /// The `choice` answer for `id`, or nil when missing or of another type (no confidence gate).
    public func choice(_ id: String) -> JevChoiceAnswer? {
        if case .choice(let a)? = answers[id] { return a }
        return nil
    }

    /// The `score` answer for `id`, or nil when missing or of another type (no confidence gate).
    public func score(_ id: String) -> JevScoreAnswer? {
        if case .score(let a)? = answers[id] { return a }
        return nil
    }
}

/// Why a Jev call produced no answers. Descriptions never carry the key, the state or the questions.
public enum JevFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// `JEV_API_KEY` is not set; no request was made.
    case noAPIKey
    /// An attempt (or the overall budget) ran out of time.
    case timeout
    /// Connection failure or another transport error.
    case network
    /// Still 429/529 after the last attempt.
    case rateLimited(status: Int)
    /// Any other non-2xx status.
    case httpError(status: Int)
    /// The body was not a `systemone` response, or one answer could not be parsed.
    case invalidResponse
    /// A single-question helper got a choice/score answer below the 0.55 confidence threshold.
    case lowConfidence

    public var description: String {
        switch self {
        case .noAPIKey: "jev: no_api_key"
        case .timeout: "jev: timeout"
        case .network: "jev: network_error"
        case .rateLimited(let status): "jev: rate_limited (\(status))"
        case .httpError(let status): "jev: http_error (\(status))"
        case .invalidResponse: "jev: invalid_response"
        case .lowConfidence: "jev: low_confidence"
        }
    }

    /// The contract's snake_case reason, for logs and metrics labels.
    public var reason: String {
        switch self {
        case .noAPIKey: "no_api_key"
        case .timeout: "timeout"
        case .network: "network_error"
        case .rateLimited: "rate_limited"
        case .httpError: "http_error"
        case .invalidResponse: "invalid_response"
        case .lowConfidence: "low_confidence"
        }
    }
}

struct JevDynamicKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { self.stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

// MARK: - Wire decoding

/// The `systemone` response body. Decoding throws when any answer is unparseable, which fails the batch.
struct JevResponseBody: Decodable {
    var model: String?
    var answers: [String: JevAnswer]
    var usage: JevUsage

    private enum Keys: String, CodingKey { case model, answers, usage }
    private enum UsageKeys: String, CodingKey { case inputTokens = "input_tokens", outputTokens = "output_tokens" }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        model = try? c.decodeIfPresent(String.self, forKey: .model)
        let raw = try c.decode([String: WireAnswer].self, forKey: .answers)
        answers = raw.mapValues(\.answer)
        var usage = JevUsage()
        if let u = try? c.nestedContainer(keyedBy: UsageKeys.self, forKey: .usage) {
            usage.inputTokens = (try? u.decodeIfPresent(Int.self, forKey: .inputTokens)) ?? 0
            usage.outputTokens = (try? u.decodeIfPresent(Int.self, forKey: .outputTokens)) ?? 0
        }
        self.usage = usage
    }
}

private struct WireAnswer: Decodable {
    var answer: JevAnswer

    private enum Keys: String, CodingKey { case type, noul, choice, probabilities, confidence, score, legend }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        switch try c.decode(String.self, forKey: .type) {
        case "noul":
            answer = .noul(try Self.finite(c, .noul))
        case "choice":
            answer = .choice(
                JevChoiceAnswer(
                    choice: try c.decode(String.self, forKey: .choice),
                    probabilities: try Self.probabilities(c),
                    confidence: try Self.finite(c, .confidence)))
        case "score":
            answer = .score(
                JevScoreAnswer(
                    score: try Self.finite(c, .score),
                    legend: try? c.decodeIfPresent([String: String].self, forKey: .legend),
                    probabilities: try Self.probabilities(c),
                    confidence: try Self.finite(c, .confidence)))
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown answer type")
        }
    }

    private static func finite(_ c: KeyedDecodingContainer<Keys>, _ key: Keys) throws -> Double {
        let v = try c.decode(Double.self, forKey: key)
        guard v.isFinite else {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "not a finite number")
        }
        return v
    }

    /// An object of numbers; `null` entries are dropped.
    private static func probabilities(_ c: KeyedDecodingContainer<Keys>) throws -> [String: Double] {
        let raw = try c.decode([String: Double?].self, forKey: .probabilities)
        return raw.compactMapValues { $0.flatMap { $0.isFinite ? $0 : nil } }
    }
}
