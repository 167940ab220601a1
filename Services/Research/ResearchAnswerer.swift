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
        var phase: String? = nil
        var progress: ResearchProgress? = nil
    }

    /// What became of a turn: answered, still running at Derivation (a 202), or refused by Derivation (a 409).
    enum Outcome: Sendable {
        case answered(Answer)
        case pending(derivationId: String)
        case conflict
    }

    /// Answers a turn: Derivation first (resuming run `resuming` when it was started earlier), else OpenRouter's
    /// chain when `fallback`, else the plain sentence. A run still going at its deadline is `pending`, never a fallback.
    func answer(
        message: String, ticker: String?, derivationId: String?, resuming: String? = nil, clientMessageId: String,
        depth: String, fallback: Bool = true, deadline: ContinuousClock.Instant
    ) async -> Outcome {
        let prompt = ResearchWriting.prompt(message, ticker: ticker)
        let knownDerivationId = resuming ?? derivationId
        if let derivation {
            let share = fallback ? deadline - ResearchWriting.fallbackReserve : deadline
            do throws(DerivationClient.Failure) {
                let brief: DerivationClient.Brief
                if let resuming {
                    brief = try await derivation.resume(id: resuming, deadline: share)
                } else {
                    brief = try await derivation.brief(
                        prompt: prompt, conversation: derivationId, clientMessageId: clientMessageId, depth: depth,
                        deadline: share)
                }
                return .answered(
                    Answer(
                        content: brief.content, provider: "derivation", status: brief.status,
                        derivationId: brief.conversationId, phase: brief.phase, progress: brief.progress))
            } catch {
                switch error {
                case .stillRunning(let id): return .pending(derivationId: id)
                case .conflict: return .conflict
                default:
                    logger.warning("derivation failed; falling back", [LogKeys.error: .string("\(error)")])
                }
            }
        }
        guard fallback else {
            return .answered(
                Answer(
                    content: ResearchWriting.unavailable, provider: "unavailable", status: .error,
                    derivationId: knownDerivationId))
        }
        struct Brief: Decodable, Sendable { let brief: String }
        let outcome = await openRouter.chatJSON(
            decoding: Brief.self, models: OpenRouterModels.researchFallback, system: ResearchWriting.system,
            user: .text(prompt),
            temperature: 0.3, timeoutPerModel: .seconds(25), deadline: deadline, feature: "research",
            accept: { ResearchWriting.acceptable($0.brief) })
        if let result = outcome.result {
            return .answered(
                Answer(
                    content: result.value.brief.trimmingCharacters(in: .whitespacesAndNewlines),
                    provider: "openrouter", status: .conclusive, derivationId: knownDerivationId))
        }
        if case .allModelsFailed(let failures) = outcome {
            logger.warning("research fallback failed on every model", [LogKeys.models: .int(failures.count)])
        }
        return .answered(
            Answer(
                content: ResearchWriting.unavailable, provider: "unavailable", status: .error,
                derivationId: knownDerivationId))
    }
}
