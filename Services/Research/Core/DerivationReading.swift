import Contracts
import Foundation

/// How Derivation's JSON answers are read, with no I/O: a run's terminal statuses, machine codes (which must never
/// reach a client as prose), and where a brief's text may sit in a finished run.
public enum DerivationReading {
    /// Whether polling stops at `status`.
    public static func terminal(_ status: ResearchStatus) -> Bool {
        status == .conclusive || status == .exhausted || status == .blocked || status == .error
    }

    /// A machine code (`MODEL_BUDGET_EXHAUSTED`, `RATE_LIMITED`, …) rather than prose, found in a string or an
    /// object's `code`/`message`.
    public static func machineText(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text):
            let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
            let looksLikeCode =
                t.count >= 6 && t.first.map { $0.isUppercase } == true
                && t.allSatisfy { ($0.isUppercase && $0.isASCII) || $0.isNumber || $0 == "_" }
            let known = ["BUDGET_EXHAUSTED", "RATE_LIMIT", "INSUFFICIENT_QUOTA", "MODEL_"].contains { t.contains($0) }
            return looksLikeCode || known ? t : nil
        case .object(let fields): return machineText(fields["code"]) ?? machineText(fields["message"])
        default: return nil
        }
    }

    /// The conversation a `POST /api/explore` answer started or steered, and its status (`queued` when unsaid).
    public static func startedConversation(_ started: [String: JSONValue]) -> (id: String, status: ResearchStatus)? {
        let ref = object(started["conversation"]) ?? object(started["campaign"])
        guard let id = string(ref?["id"]) ?? string(started["conversation_id"]) else { return nil }
        return (id, ResearchStatus(rawValue: string(ref?["status"]) ?? "") ?? .queued)
    }

    /// The status of a `summary=1` poll (`error` when it says none).
    public static func polledStatus(_ summary: [String: JSONValue]) -> ResearchStatus {
        ResearchStatus(rawValue: string(summary["status"]) ?? "") ?? .error
    }

    /// The brief of a finished run (`display=1`), from the first place that holds one.
    public static func briefText(_ run: [String: JSONValue]) -> String? {
        string(object(run["latest_result"])?["briefing"]) ?? string(object(run["preview"])?["briefing"])
            ?? string(object(run["memo"])?["executive_summary"]) ?? string(object(run["conclusion"])?["reason"])
    }

    static func object(_ value: JSONValue?) -> [String: JSONValue]? {
        if case .object(let fields) = value { return fields }
        return nil
    }

    static func string(_ value: JSONValue?) -> String? {
        guard case .string(let text) = value else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}

extension DerivationReading {
    /// A run's phase and iteration counts from a `summary=1` or `display=1` answer (top level or `progress`).
    public static func progress(_ run: [String: JSONValue]) -> (phase: String?, progress: ResearchProgress?) {
        let nested = object(run["progress"]) ?? [:]
        let completed = int(run["completed_iterations"]) ?? int(nested["completed_iterations"])
        let maximum = int(run["max_iterations"]) ?? int(nested["max_iterations"])
        let phase = string(run["phase"]) ?? string(nested["phase"])
        let progress =
            completed == nil && maximum == nil
            ? nil : ResearchProgress(completedIterations: completed, maxIterations: maximum)
        return (phase.map { String($0.prefix(80)) }, progress)
    }

    /// Why a blocked run stopped (`preview.blocker.reason`, else `conclusion.reason`).
    public static func blocker(_ run: [String: JSONValue]) -> String? {
        string(object(object(run["preview"])?["blocker"])?["reason"]) ?? string(object(run["conclusion"])?["reason"])
    }

    static func int(_ value: JSONValue?) -> Int? {
        guard case .number(let n) = value, n.isFinite, n >= 0, n < 1_000_000 else { return nil }
        return Int(n)
    }
}
