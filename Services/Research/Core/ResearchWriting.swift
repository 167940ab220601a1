import Contracts
import Foundation

/// What a research turn asks the models and what it accepts back, and the notification a finished answer sends.
public enum ResearchWriting {
    /// The answer when neither Derivation nor the OpenRouter chain produced one.
    public static let unavailable = "Research is temporarily unavailable. Try again in a moment."
    /// What the OpenRouter fallback is left at least, when Derivation runs first.
    public static let fallbackReserve: Duration = .seconds(12)

    public static let system = """
        You write short financial research briefs. Lede first, then evidence. Cite public sources by name when you \
        rely on them. Never invent prices, tickers or statistics; if unsure, say so. Research only: no trades, no \
        broker orders. Answer as JSON {"brief": "<plain text, no markdown headers>"}.
        """

    /// The user prompt: the instruction, the focus ticker when there is one, and the message cut at 4,000 characters.
    public static func prompt(_ message: String, ticker: String?) -> String {
        let instruction =
            "Write like a short financial news brief when you conclude: lede first, then evidence. Research only; no trades."
        let user = String(message.prefix(4000))
        return ticker.map { "Focus ticker: $\($0). \(instruction)\n\nUser: \(user)" }
            ?? "\(instruction)\n\nUser: \(user)"
    }

    /// Whether a model's brief may be shown: not blank, not a machine code.
    public static func acceptable(_ brief: String) -> Bool {
        !brief.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
            && DerivationReading.machineText(.string(brief)) == nil
    }

    /// `agent_response` for a signed-in owner, keyed by the reply's id (one notification per reply, however often the
    /// after-reply work is retried).
    public static func push(userId: String, conversationId: String, answer: ResearchArticle) -> PushRequest {
        PushRequest(
            id: "agent-" + answer.id, userIds: [userId], eventKey: .agentResponse, eventKind: "agent_response",
            title: "Your research is ready", body: pushBody(answer.content),
            data: ["kind": .string("agent_response"), "threadId": .string(conversationId)],
            target: PushTarget(type: "research", fields: ["threadId": .string(conversationId)]),
            dedupe: [PushDedupe(slot: "agent_response", key: answer.id)])
    }
}

extension ResearchWriting {
    /// The notification's text: the answer's first line cut to 160 characters (`Research ready` when blank).
    static func pushBody(_ content: String) -> String {
        let first = content.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let trimmed = first.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? "Research ready" : String(trimmed.prefix(160))
    }
}
