import Contracts
import Foundation
import Messaging
import Runtime
import ServiceKit

/// The side effects of an identify (docs/COMPATIBILITY.md#identify-processing), made durable: computed with the answer,
/// applied after the reply, and if that fails handed to `Topics.identifyEffects` as an `identify.effects.v1` command,
/// which is applied from there until it succeeds (its offset held meanwhile). See
/// docs/decisions/0017-durable-after-reply-effects.md.
struct IdentifyEffects: Sendable {
    /// The consumer group of `Topics.identifyEffects`.
    static let groupId = "mapvest.identify.effects"

    let finds: FindsCommands
    let context: ServiceContext
    /// Whether Postgres is known to be down: then effects with a find are handed off without an inline attempt.
    let circuit: DatabaseCircuit
    /// How long the first, inline attempt may take before the effects are handed off.
    var inlineAttempt: Duration = .seconds(2)
    /// How long one attempt of a handed-off effects command may take before the runner retries it.
    var handedOffAttempt: Duration = .seconds(10)

    private static let handOffSeconds = MetricsRegistry.shared.histogram(
        "identify_effects_handoff_seconds", help: "From an identify's reply to its effects handed to the effects topic."
    )
    private static let fastHandOffs = MetricsRegistry.shared.counter(
        "identify_effects_fast_handoffs_total", help: "Effects handed off at once because the database circuit is open."
    )

    /// After an identify's reply: applies the effects, or hands them off when that fails within `inlineAttempt`, or
    /// at once when they record a find and `circuit` says the database is down. Throws only when the hand-off fails
    /// too (the broker is down): the runner then retries, holding the offset.
    func applyOrHandOff(_ effects: IdentifyEffectsCommand, key: String) async throws {
        let started = ContinuousClock.now
        let touchesDatabase = effects.userId != nil && effects.find != nil
        if touchesDatabase && !circuit.allowsAttempt() {
            Self.fastHandOffs.increment()
        } else {
            do {
                try await apply(effects, awardKey: effects.awardKey ?? key, attempt: inlineAttempt)
                return
            } catch {
                context.logger.warning(
                    "identify effects failed; handing them off", [LogKeys.error: .string("\(error)")])
            }
        }
        let body = Array(try JSONEncoder().encode(effects))
        try await context.publisher.deliverCommand(
            topic: Topics.identifyEffects, key: key, name: IdentifyEffectsCommand.name, body: body,
            until: .now + inlineAttempt)
        Self.handOffSeconds.observe(since: started)
    }

    /// A handed-off effects command: applied after its (unsent) reply, so the runner retries it until it succeeds.
    /// `delivery` names its awards when the command carries no award key.
    func handle(_ effects: IdentifyEffectsCommand, delivery: String) -> Reply {
        Reply(status: 204, body: []).then {
            try await apply(effects, awardKey: effects.awardKey ?? delivery, attempt: handedOffAttempt)
        }
    }

    /// Records the find (its event staged in the outbox with the row, relayed after COMMIT), then publishes the push
    /// request and the completion event. Each part is idempotent: the find by its identity index, the push by its
    /// dedupe key and request id, the events by their consumers. Throws when any part did not finish within `attempt`.
    func apply(_ effects: IdentifyEffectsCommand, awardKey: String, attempt: Duration) async throws {
        let deadline = ContinuousClock.now + attempt
        try await TaskDeadline.$current.withValue(deadline) {
            if let userId = effects.userId, let find = effects.find {
                do {
                    try await finds.record(userId: userId, [find], awardKey: awardKey, deadline: deadline)
                    circuit.recordSuccess()
                } catch {
                    circuit.recordFailure(error)
                    throw error
                }
            }
            if let push = effects.push, let userId = effects.userId {
                try await context.publisher.deliver(
                    topic: Topics.pushRequests, key: userId, value: Array(try JSONEncoder().encode(push)),
                    until: deadline)
            }
            try await context.emit(
                type: IdentifyCompletedEvent.type, schemaVersion: IdentifyCompletedEvent.schemaVersion,
                key: effects.eventKey, data: effects.completed, deadline: deadline)
        }
    }
}
