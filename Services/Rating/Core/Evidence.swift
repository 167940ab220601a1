import Contracts

/// The rating's evidence sources, in the contract's fixed order (docs/COMPATIBILITY.md#rating-evidence).
public enum EvidenceSourceID: String, CaseIterable, Sendable, Codable {
    case quote, ratios, synthesis, pulse, environment, prism, situate, headlines
    case peerForecast = "peer_forecast"

    /// The driver family the source argues about.
    public var driver: RatingDriverName {
        switch self {
        case .quote: .momentum
        case .ratios: .valuation
        case .synthesis, .prism, .situate: .fundamentals
        case .pulse: .localDemand
        case .environment: .macro
        case .headlines: .narrative
        case .peerForecast: .peerForecast
        }
    }

    /// `evidence[].source` on the wire.
    var evidenceName: String {
        switch self {
        case .quote: "quote"
        case .ratios: "ratios"
        case .synthesis: "synthesis_memo"
        case .pulse: "demand_pulse"
        case .environment: "environment_brief"
        case .prism: "prism"
        case .situate: "situate"
        case .headlines: "headlines"
        case .peerForecast: "peer_forecast"
        }
    }
}

/// One resolved source: a summary for the response, the facts Jev sees, and an optional ref.
public struct Evidence: Sendable, Equatable {
    public var id: EvidenceSourceID
    public var summary: String
    public var ref: String?
    public var facts: [String: JSONValue]

    public init(id: EvidenceSourceID, summary: String, ref: String? = nil, facts: [String: JSONValue] = [:]) {
        self.id = id
        self.summary = EvidenceText.clip(summary)
        self.ref = ref
        self.facts = facts
    }

    public var wire: RatingEvidence { RatingEvidence(source: id.evidenceName, summary: summary, ref: ref) }

    /// `{driver, …facts}` for the Jev state.
    public var state: JSONValue {
        var object = facts
        object["driver"] = .string(id.driver.rawValue)
        object["summary"] = .string(summary)
        return .object(object)
    }
}

/// Text rules for evidence summaries.
public enum EvidenceText {
    /// Runs of whitespace collapsed to one space, trimmed, and clipped to `limit` characters with an ellipsis.
    public static func clip(_ text: String, limit: Int = 300) -> String {
        let collapsed = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard collapsed.count > limit else { return collapsed }
        return String(collapsed.prefix(limit - 1)) + "…"
    }

    /// `+1.2%` / `-3.4%` from a fraction or percent (`isFraction` false means the value already is a percent).
    public static func percent(_ value: Double, isFraction: Bool = true, digits: Int = 1) -> String {
        let pct = isFraction ? value * 100 : value
        let sign = pct >= 0 ? "+" : "-"
        return sign + number(abs(pct), digits: digits) + "%"
    }

    public static func number(_ value: Double, digits: Int = 2) -> String {
        let scale = pow10(digits)
        let rounded = (value * scale).rounded() / scale
        var text = String(rounded)
        if let dot = text.firstIndex(of: ".") {
            let decimals = text.distance(from: dot, to: text.endIndex) - 1
            if decimals < digits { text += String(repeating: "0", count: digits - decimals) }
        } else if digits > 0 {
            text += "." + String(repeating: "0", count: digits)
        }
        return text
    }

    private static func pow10(_ n: Int) -> Double {
        var v = 1.0
        for _ in 0..<max(0, n) { v *= 10 }
        return v
    }
}
