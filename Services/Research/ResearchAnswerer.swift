import Contracts
import Foundation
import OpenRouter
import Runtime

/// Who answers a research turn (docs/COMPATIBILITY.md#research): Derivation when configured; when it is absent or fails
/// (a machine error such as `MODEL_BUDGET_EXHAUSTED`, an HTTP error, no brief in its share of the budget) OpenRouter's
/// research chain (grok → luna → opus, up to 25 s each within the deadline); neither → a plain sentence. Failure
/// details go to the log only.
struct ResearchAnswerer: Sendable {
    static let unavailable = "Research is temporarily unavailable. Try again in a moment."
    /// What the OpenRouter fallback is left at least, when Derivation runs first.
    static let fallbackReserve: Duration = .seconds(12)

    let derivation: DerivationClient?
    let openRouter: OpenRouterClient
    let logger: Logger

    struct Answer: Sendable {
        var content: String
        /// `derivation`, `openrouter` or `unavailable`.
        var provider: String
        var status: ResearchStatus
        var derivationId: String?
    }

    func answer(
        message: String, ticker: String?, derivationId: String?, clientMessageId: String, depth: String,
        deadline: ContinuousClock.Instant
    ) async -> Answer {
        let prompt = Self.prompt(message, ticker: ticker)
        var knownDerivationId = derivationId
        if let derivation {
            do {
                let brief = try await derivation.brief(
                    prompt: prompt, conversation: derivationId, clientMessageId: clientMessageId, depth: depth,
                    deadline: deadline - Self.fallbackReserve)
                return Answer(
                    content: brief.content, provider: "derivation", status: brief.status,
                    derivationId: brief.conversationId)
            } catch {
                if case .stillRunning(let id) = error { knownDerivationId = id }
                logger.warning("derivation failed; falling back to OpenRouter", [LogKeys.error: .string("\(error)")])
            }
        }
        struct Brief: Decodable, Sendable { let brief: String }
        let outcome = await openRouter.chatJSON(
            decoding: Brief.self, models: OpenRouterModels.researchFallback, system: Self.system, user: .text(prompt),
            temperature: 0.3, timeoutPerModel: .seconds(25), deadline: deadline, feature: "research",
            accept: { brief in
                !brief.brief.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
                    && DerivationClient.machineText(.string(brief.brief)) == nil
            })
        if let result = outcome.result {
            return Answer(
                content: result.value.brief.trimmingCharacters(in: .whitespacesAndNewlines), provider: "openrouter",
                status: .conclusive, derivationId: knownDerivationId)
        }
        if case .allModelsFailed(let failures) = outcome {
            logger.warning("research fallback failed on every model", [LogKeys.models: .int(failures.count)])
        }
        return Answer(
            content: Self.unavailable, provider: "unavailable", status: .error, derivationId: knownDerivationId)
    }

    static let system = """
        You write short financial research briefs. Lede first, then evidence. Cite public sources by name when you \
        rely on them. Never invent prices, tickers or statistics; if unsure, say so. Research only: no trades, no \
        broker orders. Answer as JSON {"brief": "<plain text, no markdown headers>"}.
        """

    static func prompt(_ message: String, ticker: String?) -> String {
        let instruction =
            "Write like a short financial news brief when you conclude: lede first, then evidence. Research only; no trades."
        let user = String(message.prefix(4000))
        return ticker.map { "Focus ticker: $\($0). \(instruction)\n\nUser: \(user)" }
            ?? "\(instruction)\n\nUser: \(user)"
    }
}
