import Contracts
import Foundation
import OpenRouter
import ResearchCore
import Runtime

/// Who answers a research turn (docs/COMPATIBILITY.md#research): Derivation when configured; when it is absent or fails
/// (a machine error such as `MODEL_BUDGET_EXHAUSTED`, an HTTP error, no brief in its share of the budget) OpenRouter's
/// research chain (grok → luna → opus, up to 25 s each within the deadline); neither → a plain sentence. Failure
/// details go to the log only.
struct ResearchAnswerer: Sendable {
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
        let prompt = ResearchWriting.prompt(message, ticker: ticker)
        var knownDerivationId = derivationId
        if let derivation {
            do {
                let brief = try await derivation.brief(
                    prompt: prompt, conversation: derivationId, clientMessageId: clientMessageId, depth: depth,
                    deadline: deadline - ResearchWriting.fallbackReserve)
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
            decoding: Brief.self, models: OpenRouterModels.researchFallback, system: ResearchWriting.system,
            user: .text(prompt),
            temperature: 0.3, timeoutPerModel: .seconds(25), deadline: deadline, feature: "research",
            accept: { ResearchWriting.acceptable($0.brief) })
        if let result = outcome.result {
            return Answer(
                content: result.value.brief.trimmingCharacters(in: .whitespacesAndNewlines), provider: "openrouter",
                status: .conclusive, derivationId: knownDerivationId)
        }
        if case .allModelsFailed(let failures) = outcome {
            logger.warning("research fallback failed on every model", [LogKeys.models: .int(failures.count)])
        }
        return Answer(
            content: ResearchWriting.unavailable, provider: "unavailable", status: .error,
            derivationId: knownDerivationId)
    }
}
