import Contracts
import Jev
import RatingCore

extension RatingAnswers {
    /// Jev's answers to the rating's questions: `rating` when it is a score, `primary_driver` when it is a choice,
    /// `up_<driver>` when it is a noul; anything else is absent.
    public init(_ answers: JevAnswers) {
        var up: [RatingDriverName: Double] = [:]
        for name in RatingDriverName.allCases {
            if let p = answers.noul("up_\(name.rawValue)") { up[name] = p }
        }
        self.init(
            score: answers.score("rating").map {
                Score(score: $0.score, probabilities: $0.probabilities, confidence: $0.confidence)
            },
            primaryDriver: answers.choice("primary_driver").map {
                Choice(choice: $0.choice, confidence: $0.confidence)
            },
            up: up)
    }

    /// The answers of a successful call; nil when the call failed (the decision then has no signal).
    public init?(_ result: Result<JevAnswers, JevFailure>) {
        guard case .success(let answers) = result else { return nil }
        self.init(answers)
    }
}
