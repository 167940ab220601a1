import Contracts

/// What Jev answered to the rating's questions, as the decision reads them: the `rating` score, the
/// `primary_driver` choice and the `up_<driver>` nouls. The adapter fills it from Jev's answers; an answer of
/// another type than asked is absent here.
public struct RatingAnswers: Sendable, Equatable {
    /// The `rating` score: the rubric position, probabilities (keyed by action name or index) and confidence.
    public struct Score: Sendable, Equatable {
        public var score: Double
        public var probabilities: [String: Double]
        public var confidence: Double

        public init(score: Double, probabilities: [String: Double], confidence: Double) {
            self.score = score
            self.probabilities = probabilities
            self.confidence = confidence
        }
    }

    /// The `primary_driver` choice: a driver name and its confidence.
    public struct Choice: Sendable, Equatable {
        public var choice: String
        public var confidence: Double

        public init(choice: String, confidence: Double) {
            self.choice = choice
            self.confidence = confidence
        }
    }

    public var score: Score?
    public var primaryDriver: Choice?
    /// `up_<driver>`: the probability that the driver's evidence argues for up.
    public var up: [RatingDriverName: Double]

    public init(score: Score? = nil, primaryDriver: Choice? = nil, up: [RatingDriverName: Double] = [:]) {
        self.score = score
        self.primaryDriver = primaryDriver
        self.up = up
    }
}
