import Contracts
import Foundation
import RatingCore
import Testing

/// docs/COMPATIBILITY.md#rating-decision as tables: one_line, strength, probabilities and action, drivers, and the
/// insufficient cases.
struct RatingDecisionTests {
    static func driver(_ name: RatingDriverName, _ direction: RatingDirection, _ weight: Double = 0.5) -> RatingDriver {
        RatingDriver(name: name, direction: direction, weight: weight)
    }

    @Test(arguments: [
        (
            RatingAction.buy, [driver(.momentum, .up), driver(.fundamentals, .up), driver(.macro, .down)],
            "Buy · momentum + fundamentals; macro headwind"
        ),
        (
            .strongBuy, [driver(.narrative, .up), driver(.localDemand, .up), driver(.peerForecast, .up)],
            "Strong buy · news flow + demand pulse"
        ),
        (
            .sell, [driver(.valuation, .down), driver(.macro, .down), driver(.momentum, .down)],
            "Sell · valuation + macro headwinds"
        ),
        (
            .strongSell, [driver(.peerForecast, .down), driver(.fundamentals, .flat)],
            "Strong sell · peer forecast headwind"
        ),
        (.hold, [driver(.momentum, .flat), driver(.valuation, .flat)], "Hold · mixed signals"),
        (.hold, [], "Hold · mixed signals"),
        (.buy, [driver(.valuation, .flat), driver(.momentum, .up)], "Buy · momentum"),
        (
            .hold,
            [driver(.localDemand, .down), driver(.narrative, .up), driver(.macro, .down), driver(.valuation, .down)],
            "Hold · news flow; demand pulse + macro headwinds"
        ),
    ])
    func oneLine(action: RatingAction, drivers: [RatingDriver], expected: String) {
        #expect(RatingDecision.oneLine(action: action, drivers: drivers) == expected)
        #expect(expected.contains(" \u{00B7} "))
    }

    static func probabilities(_ p: [Double]) -> RatingProbabilities {
        RatingProbabilities(strongSell: p[0], sell: p[1], hold: p[2], buy: p[3], strongBuy: p[4])
    }

    @Test(arguments: [
        ([0.0, 0.05, 0.1, 0.75, 0.1], RatingStrength.strong),  // margin 0.65
        ([0.0, 0.1, 0.25, 0.5, 0.15], .strong),  // 0.25 exactly
        ([0.0, 0.1, 0.26, 0.5, 0.14], .normal),  // 0.24
        ([0.1, 0.1, 0.3, 0.4, 0.1], .normal),  // 0.10 exactly
        ([0.1, 0.1, 0.35, 0.44, 0.01], .weak),  // 0.09
        ([0.2, 0.2, 0.2, 0.2, 0.2], .weak),  // 0
    ])
    func strength(p: [Double], expected: RatingStrength) {
        #expect(RatingDecision.strength(Self.probabilities(p)) == expected)
    }

    @Test func strengthWithoutProbabilitiesIsNormal() {
        #expect(RatingDecision.strength(nil) == .normal)
    }

    static func score(_ probabilities: [String: Double], score: Double = 3, confidence: Double = 0.7)
        -> RatingAnswers.Score
    {
        RatingAnswers.Score(score: score, probabilities: probabilities, confidence: confidence)
    }

    @Test(arguments: [
        // Named keys, normalised to 1 and rounded to 3 dp.
        (["strong_sell": 1, "sell": 1, "hold": 2, "buy": 4, "strong_buy": 2], [0.1, 0.1, 0.2, 0.4, 0.2] as [Double]?),
        // Index keys.
        (["0": 0.1, "1": 0.1, "2": 0.5, "3": 0.2, "4": 0.1], [0.1, 0.1, 0.5, 0.2, 0.1]),
        // Negatives ignored; missing keys are 0.
        (["sell": -0.4, "hold": 0.25, "buy": 0.75], [0, 0, 0.25, 0.75, 0]),
        (["hold": 1, "buy": 2], [0, 0, 0.333, 0.667, 0]),
        // Nothing usable.
        (["sell": -1, "other": 3], nil),
        ([:], nil),
    ])
    func probabilities(raw: [String: Double], expected: [Double]?) {
        #expect(RatingDecision.probabilities(Self.score(raw)) == expected.map(Self.probabilities))
    }

    @Test(arguments: [
        ([0.1, 0.1, 0.2, 0.5, 0.1], 0.0, RatingAction?.some(.buy)),
        // Ties keep hold (the scan starts from hold and replaces only on strictly greater).
        ([0.0, 0.0, 0.4, 0.4, 0.2], 0.0, .hold),
        ([0.3, 0.3, 0.2, 0.1, 0.1], 0.0, .strongSell),
        ([0.2, 0.2, 0.2, 0.2, 0.2], 4.0, .hold),
    ])
    func actionIsTheArgmax(p: [Double], score: Double, expected: RatingAction?) {
        #expect(RatingDecision.action(probabilities: Self.probabilities(p), score: score) == expected)
    }

    @Test(arguments: [
        (0.0, RatingAction?.some(.strongSell)), (3.0, .buy), (2.4, .hold), (4.0, .strongBuy), (5.0, nil), (-1.0, nil),
        (.nan, nil),
    ])
    func scoreIsTheIndexWithoutProbabilities(score: Double, expected: RatingAction?) {
        #expect(RatingDecision.action(probabilities: nil, score: score) == expected)
    }

    static func evidence(_ ids: [EvidenceSourceID]) -> [Evidence] {
        ids.map { Evidence(id: $0, summary: "summary of \($0.rawValue)") }
    }

    static func answers(
        score: RatingAnswers.Score? = score(["buy": 0.6, "hold": 0.3, "sell": 0.1]),
        primary: (String, Double)? = ("momentum", 0.8),
        nouls: [RatingDriverName: Double] = [:]
    ) -> RatingAnswers {
        RatingAnswers(
            score: score, primaryDriver: primary.map { RatingAnswers.Choice(choice: $0.0, confidence: $0.1) }, up: nouls
        )
    }

    @Test func driversUseNoulThresholdsAndSortPrimaryThenWeightThenCanonicalOrder() {
        let drivers = RatingDecision.drivers(
            present: [.valuation, .momentum, .fundamentals, .narrative, .macro, .peerForecast],
            answers: Self.answers(
                primary: ("macro", 0.7),
                nouls: [.valuation: 0.4, .momentum: 0.9, .fundamentals: 0.6, .narrative: 0.55, .macro: 0.5]))
        #expect(
            drivers == [
                Self.driver(.macro, .flat, 0), Self.driver(.momentum, .up, 0.8), Self.driver(.valuation, .down, 0.2),
                Self.driver(.fundamentals, .up, 0.2), Self.driver(.narrative, .flat, 0.1),
                Self.driver(.peerForecast, .flat, 0),
            ])
        // A primary below 0.55 confidence, or not among the present drivers, is ignored.
        let unsure = RatingDecision.drivers(
            present: [.valuation, .momentum],
            answers: Self.answers(primary: ("valuation", 0.5), nouls: [.momentum: 0.2]))
        #expect(unsure.map(\.name) == [.momentum, .valuation])
        let absent = RatingDecision.drivers(present: [.valuation], answers: Self.answers(primary: ("macro", 0.9)))
        #expect(absent == [Self.driver(.valuation, .flat, 0)])
    }

    @Test func fewerThanTwoSourcesIsInsufficientWithoutDrivers() {
        let response = RatingDecision.decide(
            ticker: "MCD", asOf: "2026-08-21T00:00:00.000Z", evidence: Self.evidence([.quote]),
            answers: Self.answers())
        #expect(response.status == .insufficientSignal && response.rating == nil && response.probabilities == nil)
        #expect(response.drivers.isEmpty && response.confidence == 0 && response.inputsUsed == ["quote"])
        #expect(response.evidence.map(\.source) == ["quote"])
    }

    @Test func aWeakOrMissingScoreIsInsufficientButKeepsTheDrivers() {
        let evidence = Self.evidence([.quote, .ratios])
        for answers in [
            Self.answers(score: Self.score(["buy": 1], confidence: 0.54), nouls: [.momentum: 0.9]),
            Self.answers(score: nil, nouls: [.momentum: 0.9]),
        ] {
            let response = RatingDecision.decide(ticker: "MCD", asOf: "t", evidence: evidence, answers: answers)
            #expect(response.status == .insufficientSignal && response.rating == nil && response.confidence == 0)
            #expect(response.drivers.map(\.name) == [.momentum, .valuation])
        }
    }

    @Test func anOkRatingCarriesEverything() throws {
        let response = RatingDecision.decide(
            ticker: "MCD", asOf: "2026-08-21T00:00:00.000Z", evidence: Self.evidence([.quote, .ratios, .environment]),
            answers:
                Self.answers(
                    score: Self.score(
                        ["strong_sell": 0.02, "sell": 0.08, "hold": 0.2, "buy": 0.6, "strong_buy": 0.1],
                        confidence: 0.71234),
                    nouls: [.momentum: 0.8, .valuation: 0.55, .macro: 0.3]))
        #expect(response.status == .ok)
        let rating = try #require(response.rating)
        #expect(rating.action == .buy && rating.strength == .strong && rating.conviction == 0.712)
        #expect(rating.oneLine == "Buy · momentum; macro headwind")
        #expect(response.confidence == 0.712)
        #expect(response.disclaimer == "AI-generated research signal, not investment advice.")
        let json = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(response))
        guard case .object(let object) = json else { throw DecodingErrorLike() }
        #expect(
            Set(object.keys) == [
                "ticker", "status", "rating", "probabilities", "confidence", "drivers", "evidence", "inputs_used",
                "as_of", "disclaimer",
            ])
        guard case .object(let ratingObject)? = object["rating"] else { throw DecodingErrorLike() }
        #expect(Set(ratingObject.keys) == ["action", "strength", "conviction", "one_line"])
    }

    @Test func insufficientResponsesWriteNullNotAbsent() throws {
        let response = RatingDecision.decide(ticker: "MCD", asOf: "t", evidence: [], answers: nil)
        let text = String(decoding: try JSONEncoder().encode(response), as: UTF8.self)
        #expect(text.contains("\"rating\":null") && text.contains("\"probabilities\":null"))
        #expect(text.contains("\"status\":\"insufficient_signal\""))
        #expect(try JSONDecoder().decode(RatingResponse.self, from: Data(text.utf8)) == response)
    }

    @Test func evidenceSummariesAreCollapsedAndClipped() {
        #expect(EvidenceText.clip("  a \n\t b  ") == "a b")
        let long = String(repeating: "word ", count: 100)
        let clipped = EvidenceText.clip(long)
        #expect(clipped.count == 300 && clipped.hasSuffix("…"))
    }
}

struct DecodingErrorLike: Error {}
