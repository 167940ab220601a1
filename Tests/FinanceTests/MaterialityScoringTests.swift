import Contracts
import Finance
import Testing

/// The headline materiality rule without Jev: levels, the probability-weighted score, the confidence floor.
struct MaterialityScoringTests {
    @Test func aKnownConfidentLevelBecomesAWeightedTag() {
        #expect(
            MaterialityScoring.tag(choice: "MINOR", probabilities: [:], confidence: 0.6, minimumConfidence: 0.55)
                == JevMateriality(level: .minor, score: 0.5, confidence: 0.6))
        #expect(
            MaterialityScoring.tag(
                choice: "material", probabilities: ["noise": 1, "material": 3, "minor": -2, "other": 9],
                confidence: 1.4, minimumConfidence: 0.55)
                == JevMateriality(level: .material, score: 0.75, confidence: 1))
    }

    @Test func anUnknownLevelOrALowConfidenceIsNoTag() {
        #expect(
            MaterialityScoring.tag(choice: "huge", probabilities: [:], confidence: 0.9, minimumConfidence: 0.55) == nil)
        #expect(
            MaterialityScoring.tag(choice: "noise", probabilities: [:], confidence: 0.54, minimumConfidence: 0.55)
                == nil)
        #expect(
            MaterialityScoring.tag(choice: "noise", probabilities: [:], confidence: .nan, minimumConfidence: 0.55)
                == nil)
    }
}
