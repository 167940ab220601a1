import Contracts

/// What became of one notification request. Counts only: never tokens, ids, titles or bodies.
public struct DeliverySummary: Sendable, Equatable {
    public var requestId: String
    public var eventKind: String
    public var eventKey: String?
    /// Messages Expo accepted.
    public var successes = 0
    /// Messages not handed off or rejected (includes `invalidTokens` and everything the production gate held back).
    public var failures = 0
    /// Of `failures`: `DeviceNotRegistered` tickets; those installations were pruned.
    public var invalidTokens = 0
    /// Installations that already had this delivery (`last_sent`) or lost consent or their claim before handoff.
    public var skipped = 0
    /// Why the last failures happened.
    public var failureReason: ExpoFailure?
    /// Batches that hit a database error (their tokens were retried until the deadline).
    public var errors = 0

    public init(requestId: String, eventKind: String, eventKey: String?) {
        self.requestId = requestId
        self.eventKind = eventKind
        self.eventKey = eventKey
    }
}

extension DeliverySummary {
    /// Adds one handed-off batch.
    package mutating func add(_ batch: BatchTally) {
        successes += batch.successes
        failures += batch.failures
        invalidTokens += batch.invalid
        skipped += batch.skipped
        if let reason = batch.failureReason { failureReason = reason }
    }

    /// Tokens still busy or failing at the deadline count as unavailable failures.
    package mutating func giveUp(_ tokens: Int) {
        guard tokens > 0 else { return }
        failures += tokens
        failureReason = failureReason ?? .unavailable
    }
}

extension DeliverySummary {
    /// The events of this request (`mapvest.push.handed_off` / `mapvest.push.failed`): counts per event kind, no
    /// tokens, ids, titles or bodies. Nil when there is nothing to report of that kind.
    public var events: (handedOff: PushHandedOffEvent?, failed: PushFailedEvent?) {
        (
            successes > 0 ? PushHandedOffEvent(eventKind: eventKind, eventKey: eventKey, count: successes) : nil,
            failures > 0
                ? PushFailedEvent(
                    eventKind: eventKind, eventKey: eventKey, count: failures, invalidTokens: invalidTokens,
                    reason: (failureReason ?? .unavailable).rawValue) : nil
        )
    }
}
