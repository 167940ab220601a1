import Contracts

/// Headline materiality from a `noise | minor | material` choice, pure: a known level with enough confidence
/// becomes a tag. `HeadlineMateriality` asks the questions and memoizes the answers.
public enum MaterialityScoring {
    /// A usable answer as a tag: a known level (case-insensitive) with confidence ≥ `minimumConfidence`. The score is
    /// Σ p·position / Σ p over the level-named probabilities (noise 0, minor 0.5, material 1; negatives ignored), else
    /// the chosen level's position. Score and confidence are clamped to 0…1 and rounded to 3 dp.
    public static func tag(
        choice: String, probabilities: [String: Double], confidence: Double, minimumConfidence: Double
    ) -> JevMateriality? {
        guard confidence >= minimumConfidence, let level = MaterialityLevel(rawValue: choice.lowercased()) else {
            return nil
        }
        var weighted = 0.0
        var total = 0.0
        for candidate in MaterialityLevel.allCases {
            guard let p = probabilities[candidate.rawValue], p.isFinite, p > 0 else { continue }
            weighted += p * candidate.position
            total += p
        }
        let score = total > 0 ? weighted / total : level.position
        return JevMateriality(
            level: level, score: round3(clamp01(score)), confidence: round3(clamp01(confidence)))
    }

    private static func clamp01(_ v: Double) -> Double { v.isFinite ? min(1, max(0, v)) : 0 }
    private static func round3(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }
}
