/// The TabICL v2 sector peer forecast (fields beyond `available` and `bucket` optional).
public struct PeerForecast: Decodable, Sendable, Equatable {
    public var available: Bool?
    public var bucket: String?
    public var probabilities: [String: Double]?
    public var expectedExcessReturn: Double?
    public var confidence: Double?

    enum CodingKeys: String, CodingKey {
        case available, bucket, probabilities, confidence
        case expectedExcessReturn = "expected_excess_return"
    }

    public init(
        available: Bool?, bucket: String?, probabilities: [String: Double]? = nil, expectedExcessReturn: Double? = nil,
        confidence: Double? = nil
    ) {
        self.available = available
        self.bucket = bucket
        self.probabilities = probabilities
        self.expectedExcessReturn = expectedExcessReturn
        self.confidence = confidence
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        available = try? c.decodeIfPresent(Bool.self, forKey: .available)
        bucket = try? c.decodeIfPresent(String.self, forKey: .bucket)
        probabilities = (try? c.decodeIfPresent([String: Double?].self, forKey: .probabilities))?
            .flatMap { $0.compactMapValues { $0.flatMap { $0.isFinite ? $0 : nil } } }
        expectedExcessReturn = (try? c.decodeIfPresent(Double.self, forKey: .expectedExcessReturn)).flatMap { $0 }
        confidence = (try? c.decodeIfPresent(Double.self, forKey: .confidence)).flatMap { $0 }
    }
}

/// The stored Prism projection (`PrismSummary`): its recommendation, one-line view, scenario split and regime.
public struct PrismSummary: Decodable, Sendable, Equatable {
    public struct Recommendation: Decodable, Sendable, Equatable {
        public var action: String
        public var strength: String?
        public var conviction: Double?
        public var oneLine: String?

        enum CodingKeys: String, CodingKey {
            case action, strength, conviction
            case oneLine = "one_line"
        }
    }
    public var recommendation: Recommendation?
    public var oneLine: String?
    public var bull: Double?
    public var neutral: Double?
    public var bear: Double?
    public var regime: String?

    enum CodingKeys: String, CodingKey {
        case recommendation, bull, neutral, bear, regime, split, scenarios
        case oneLine = "one_line"
    }

    private struct Split: Decodable {
        var bull: Double?
        var neutral: Double?
        var bear: Double?
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        recommendation = (try? c.decodeIfPresent(Recommendation.self, forKey: .recommendation)).flatMap { $0 }
        oneLine = (try? c.decodeIfPresent(String.self, forKey: .oneLine)).flatMap { $0 }
        let split =
            (try? c.decodeIfPresent(Split.self, forKey: .split)).flatMap { $0 }
            ?? (try? c.decodeIfPresent(Split.self, forKey: .scenarios)).flatMap { $0 }
        bull = (try? c.decodeIfPresent(Double.self, forKey: .bull)).flatMap { $0 } ?? split?.bull
        neutral = (try? c.decodeIfPresent(Double.self, forKey: .neutral)).flatMap { $0 } ?? split?.neutral
        bear = (try? c.decodeIfPresent(Double.self, forKey: .bear)).flatMap { $0 } ?? split?.bear
        regime = (try? c.decodeIfPresent(String.self, forKey: .regime)).flatMap { $0 }
    }
}

/// The stored Situate projection (`SituateSummary`): its posture and one-line view.
public struct SituateSummary: Decodable, Sendable, Equatable {
    public struct Posture: Decodable, Sendable, Equatable {
        public var stance: String
        public var horizon: String?
        public var conviction: Double?
        public var oneLine: String?

        enum CodingKeys: String, CodingKey {
            case stance, horizon, conviction
            case oneLine = "one_line"
        }
    }
    public var posture: Posture?
    public var oneLine: String?

    enum CodingKeys: String, CodingKey {
        case posture
        case oneLine = "one_line"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        posture = (try? c.decodeIfPresent(Posture.self, forKey: .posture)).flatMap { $0 }
        oneLine = (try? c.decodeIfPresent(String.self, forKey: .oneLine)).flatMap { $0 }
    }
}
