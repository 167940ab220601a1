import Contracts
import Runtime

/// The rating decision (docs/COMPATIBILITY.md#rating-decision), pure: from the resolved evidence and Jev's one answer
/// to the response. Fewer than two sources, a failed Jev call, or a score that is missing, of the wrong type or below
/// 0.55 confidence give `insufficient_signal` with `rating: null` — never a made-up hold.
public enum RatingDecision {
    /// The rubric, in order, as the score question's criteria.
    public static let criteria = RatingAction.allCases.map(\.rawValue)

    /// Jev's confidence floor: a score or primary-driver choice below it is not used.
    public static let confidenceThreshold = 0.55

    /// `answers` nil: Jev was not asked, or the call failed.
    public static func decide(
        ticker: String, asOf: String, evidence: [Evidence], answers: RatingAnswers?
    ) -> RatingResponse {
        let wire = evidence.map(\.wire)
        let inputs = evidence.map(\.id.rawValue)
        func insufficient(_ drivers: [RatingDriver]) -> RatingResponse {
            RatingResponse(
                ticker: ticker, status: .insufficientSignal, rating: nil, probabilities: nil, confidence: 0,
                drivers: drivers, evidence: wire, inputsUsed: inputs, asOf: asOf)
        }
        guard evidence.count >= 2, let answers else { return insufficient([]) }
        let drivers = drivers(present: presentDrivers(evidence), answers: answers)
        guard let score = answers.score, score.confidence.isFinite, score.confidence >= confidenceThreshold else {
            return insufficient(drivers)
        }
        let probabilities = probabilities(score)
        guard let action = action(probabilities: probabilities, score: score.score) else {
            return insufficient(drivers)
        }
        let confidence = round3(clamp01(score.confidence))
        return RatingResponse(
            ticker: ticker, status: .ok,
            rating: Rating(
                action: action, strength: strength(probabilities), conviction: confidence,
                oneLine: oneLine(action: action, drivers: drivers)),
            probabilities: probabilities, confidence: confidence, drivers: drivers, evidence: wire, inputsUsed: inputs,
            asOf: asOf)
    }

    /// The state Jev rates: `{ticker, as_of, evidence: {<id>: {driver, …facts}}}`.
    public static func state(ticker: String, asOf: String, evidence: [Evidence]) -> JSONValue {
        var packet: [String: JSONValue] = [:]
        for item in evidence { packet[item.id.rawValue] = item.state }
        return .object(["ticker": .string(ticker), "as_of": .string(asOf), "evidence": .object(packet)])
    }

    /// Distinct drivers of the evidence, in canonical order.
    public static func presentDrivers(_ evidence: [Evidence]) -> [RatingDriverName] {
        let present = Set(evidence.map(\.id.driver))
        return RatingDriverName.allCases.filter(present.contains)
    }

    /// Per present driver: noul `p` → `up` (p ≥ 0.6), `down` (p ≤ 0.4) or `flat`, weight `|2p − 1|` (3 dp); a missing
    /// noul is flat with weight 0. Sorted: the primary driver (choice confidence ≥ 0.55) first, then weight
    /// descending, then canonical order.
    public static func drivers(present: [RatingDriverName], answers: RatingAnswers) -> [RatingDriver] {
        var primary: RatingDriverName?
        if let choice = answers.primaryDriver, choice.confidence >= confidenceThreshold,
            let name = RatingDriverName(rawValue: choice.choice), present.contains(name)
        {
            primary = name
        }
        let drivers = present.map { name -> RatingDriver in
            guard let raw = answers.up[name], raw.isFinite else {
                return RatingDriver(name: name, direction: .flat, weight: 0)
            }
            let p = clamp01(raw)
            let direction: RatingDirection = p >= 0.6 ? .up : p <= 0.4 ? .down : .flat
            return RatingDriver(name: name, direction: direction, weight: round3(abs(2 * p - 1)))
        }
        let order = Dictionary(uniqueKeysWithValues: RatingDriverName.allCases.enumerated().map { ($1, $0) })
        return drivers.sorted { a, b in
            if (a.name == primary) != (b.name == primary) { return a.name == primary }
            if a.weight != b.weight { return a.weight > b.weight }
            return (order[a.name] ?? 0) < (order[b.name] ?? 0)
        }
    }

    /// Probabilities keyed by action name (or index `"0"`…`"4"`), negatives ignored, normalised to sum 1, 3 dp;
    /// nil when none is usable.
    public static func probabilities(_ score: RatingAnswers.Score) -> RatingProbabilities? {
        var values: [Double] = []
        for (index, action) in RatingAction.allCases.enumerated() {
            let raw = score.probabilities[action.rawValue] ?? score.probabilities[String(index)]
            values.append(raw.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? 0)
        }
        let total = values.reduce(0, +)
        guard total > 0 else { return nil }
        let p = values.map { round3($0 / total) }
        return RatingProbabilities(strongSell: p[0], sell: p[1], hold: p[2], buy: p[3], strongBuy: p[4])
    }

    /// Argmax of the probabilities, scanning strong_sell → strong_buy from `hold` and replacing only on strictly
    /// greater; without probabilities the score (rounded to the nearest position 0…4) is the index; else nil.
    public static func action(probabilities: RatingProbabilities?, score: Double) -> RatingAction? {
        if let probabilities {
            var best = RatingAction.hold
            for action in RatingAction.allCases where probabilities[action] > probabilities[best] { best = action }
            return best
        }
        guard let index = score.rounded().clampedInt(-1...RatingAction.allCases.count),
            RatingAction.allCases.indices.contains(index)
        else { return nil }
        return RatingAction.allCases[index]
    }

    /// From the margin between the two most likely actions: ≥ 0.25 strong, ≥ 0.10 normal, else weak; `normal`
    /// without probabilities.
    public static func strength(_ probabilities: RatingProbabilities?) -> RatingStrength {
        guard let probabilities else { return .normal }
        let sorted = RatingAction.allCases.map { probabilities[$0] }.sorted(by: >)
        let margin = round3(sorted[0] - sorted[1])
        if margin >= 0.25 { return .strong }
        if margin >= 0.10 { return .normal }
        return .weak
    }

    /// `"<Label> · <U1>[ + <U2>][; <D1>[ + <D2>] headwind(s)]"` over the sorted drivers; `"<Label> · mixed signals"`
    /// when no driver points up or down.
    public static func oneLine(action: RatingAction, drivers: [RatingDriver]) -> String {
        let ups = drivers.filter { $0.direction == .up }.prefix(2).map(\.name.label)
        let downs = drivers.filter { $0.direction == .down }.prefix(2).map(\.name.label)
        var parts: [String] = []
        if !ups.isEmpty { parts.append(ups.joined(separator: " + ")) }
        if !downs.isEmpty {
            parts.append(downs.joined(separator: " + ") + (downs.count == 1 ? " headwind" : " headwinds"))
        }
        return "\(action.label) \u{00B7} " + (parts.isEmpty ? "mixed signals" : parts.joined(separator: "; "))
    }
}

/// `v` within 0…1; not finite → 0.
package func clamp01(_ v: Double) -> Double { v.isFinite ? min(1, max(0, v)) : 0 }
/// `v` rounded to 3 decimal places.
package func round3(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }
