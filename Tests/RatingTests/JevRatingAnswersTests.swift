import Contracts
import Jev
import RatingAdapters
import RatingCore
import Testing

/// Jev's answers as the rating decision reads them: a failed call or an answer of the wrong type is no signal.
struct JevRatingAnswersTests {
    static func evidence(_ ids: [EvidenceSourceID]) -> [Evidence] {
        ids.map { Evidence(id: $0, summary: "summary of \($0.rawValue)") }
    }

    @Test(arguments: [
        JevFailure.noAPIKey, .timeout, .network, .httpError(status: 500), .invalidResponse, .rateLimited(status: 429),
    ])
    func aJevFailureIsInsufficientNeverAHold(failure: JevFailure) {
        let response = RatingDecision.decide(
            ticker: "MCD", asOf: "t", evidence: Self.evidence([.quote, .ratios, .prism]),
            answers: RatingAnswers(.failure(failure)))
        #expect(response.status == .insufficientSignal && response.rating == nil && response.drivers.isEmpty)
        #expect(response.inputsUsed == ["quote", "ratios", "prism"])
    }

    @Test func aScoreOfTheWrongTypeIsInsufficientButKeepsTheDrivers() {
        let answers = RatingAnswers(.success(JevAnswers(answers: ["rating": .noul(0.9), "up_momentum": .noul(0.9)])))
        #expect(answers?.score == nil && answers?.up == [.momentum: 0.9])
        let response = RatingDecision.decide(
            ticker: "MCD", asOf: "t", evidence: Self.evidence([.quote, .ratios]), answers: answers)
        #expect(response.status == .insufficientSignal && response.rating == nil && response.confidence == 0)
        #expect(response.drivers.map(\.name) == [.momentum, .valuation])
    }

    @Test func scoreChoiceAndNoulsAreReadByTheirIds() {
        let answers = RatingAnswers(
            JevAnswers(answers: [
                "rating": .score(JevScoreAnswer(score: 3, probabilities: ["buy": 1], confidence: 0.7)),
                "primary_driver": .choice(
                    JevChoiceAnswer(choice: "macro", probabilities: ["macro": 0.8], confidence: 0.8)),
                "up_local_demand": .noul(0.3), "up_nothing": .noul(0.9),
            ]))
        #expect(answers.score == RatingAnswers.Score(score: 3, probabilities: ["buy": 1], confidence: 0.7))
        #expect(answers.primaryDriver == RatingAnswers.Choice(choice: "macro", confidence: 0.8))
        #expect(answers.up == [.localDemand: 0.3])
    }
}
