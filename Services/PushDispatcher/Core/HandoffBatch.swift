/// The lifecycle of one batch on one reserved connection, as a pure state machine: selected → claimed → paced →
/// locked → revalidated → handed off → finalized (or given up after three attempts: the leases expire) → unlocked.
/// `PushDispatcher` performs each `Action` and reports its result with the matching method, which returns the next
/// action. The order is the lock discipline: the session locks (sorted, distinct tokens) are taken only after the
/// claim transaction and the pace, the leases are renewed and revalidated under them (so a lease runs from lock
/// acquisition), Expo is called and the batch finalized while they are held, and they are released last.
///
/// An error before the Expo call ends the batch (the dispatcher retries its tokens); from the call on nothing fails.
package struct HandoffBatch: Sendable {
    package enum Action: Sendable, Equatable {
        /// Take the tokens: the next page after a cursor, or the given ones.
        case select(BatchSelection)
        /// The claim transaction for these tokens (sorted, distinct).
        case claim([String])
        /// Wait for the shared Expo pace (0 messages when the production gate is closed: nothing is sent).
        case pace(messages: Int)
        /// Session-level advisory locks, in this order (sorted, distinct).
        case lock([String])
        /// Renew the groups' leases from now and return the ids still valid (lease, active claim, consent).
        case revalidate([DeliveryGroup])
        /// Hand these groups to Expo (empty: no call) and report the tickets.
        case send([DeliveryGroup])
        /// The production gate is closed: these messages are not sent (`blocked()`).
        case block([DeliveryGroup])
        /// The finalize transaction, still under the session locks. `attempt` counts from 1.
        case finalize(FinalizePlan, attempt: Int)
        /// Wait before the next finalize attempt.
        case backOff(Duration)
        /// Release the session locks (reverse order); `finalized` false means the leases are left to expire.
        case unlock([String], finalized: Bool)
        /// The batch is over.
        case finish(BatchTally)
    }

    /// Finalize attempts before the leases are left to expire.
    package static let finalizeAttempts = 3

    private enum State: Sendable {
        case idle(BatchSelection)
        case selecting
        case claiming
        case pacing([DeliveryGroup])
        case locking([DeliveryGroup], locks: [String])
        case revalidating([DeliveryGroup], locks: [String])
        case handingOff([DeliveryGroup], sent: [DeliveryGroup], locks: [String])
        case finalizing(FinalizePlan, attempt: Int, locks: [String])
        case backingOff(FinalizePlan, attempt: Int, locks: [String])
        case unlocking
        case finished
    }

    private var state: State
    private let dispatchEnabled: Bool
    /// The counts so far.
    package private(set) var tally = BatchTally()

    package init(_ selection: BatchSelection, dispatchEnabled: Bool) {
        state = .idle(selection)
        self.dispatchEnabled = dispatchEnabled
    }

    package mutating func start() -> Action {
        guard case .idle(let selection) = state else { invalid("start") }
        state = .selecting
        return .select(selection)
    }

    package mutating func selected(_ tokens: [String]) -> Action {
        guard case .selecting = state else { invalid("selected") }
        tally.selected = tokens
        guard !tokens.isEmpty else { return finish() }
        state = .claiming
        return .claim(TokenLocks.sorted(tokens))
    }

    package mutating func claimed(_ claim: ClaimDecision) -> Action {
        guard case .claiming = state else { invalid("claimed") }
        tally.busy = claim.busy
        tally.skipped = claim.delivered
        guard !claim.groups.isEmpty else { return finish() }
        state = .pacing(claim.groups)
        return .pace(messages: dispatchEnabled ? claim.groups.count : 0)
    }

    package mutating func paced() -> Action {
        guard case .pacing(let groups) = state else { invalid("paced") }
        let locks = TokenLocks.sorted(groups.map(\.expoToken))
        state = .locking(groups, locks: locks)
        return .lock(locks)
    }

    package mutating func locked() -> Action {
        guard case .locking(let groups, let locks) = state else { invalid("locked") }
        state = .revalidating(groups, locks: locks)
        return .revalidate(groups)
    }

    /// `valid`: the ids of the groups whose leases were renewed.
    package mutating func revalidated(_ valid: Set<String>) -> Action {
        guard case .revalidating(let groups, let locks) = state else { invalid("revalidated") }
        let sendable = groups.filter { valid.contains($0.id) }
        tally.skipped += groups.count - sendable.count
        state = .handingOff(groups, sent: sendable, locks: locks)
        return dispatchEnabled || sendable.isEmpty ? .send(sendable) : .block(sendable)
    }

    /// Expo's tickets, by index of the messages sent.
    package mutating func handedOff(_ tickets: [ExpoTicket]) -> Action {
        guard case .handingOff(let groups, let sent, let locks) = state else { invalid("handedOff") }
        tally.record(tickets)
        let plan = FinalizePlan(groups: groups, sent: sent, tickets: tickets)
        state = .finalizing(plan, attempt: 1, locks: locks)
        return .finalize(plan, attempt: 1)
    }

    /// The blocked messages fail as `disabled`.
    package mutating func blocked() -> Action {
        guard case .handingOff(_, let sent, _) = state else { invalid("blocked") }
        return handedOff(Array(repeating: .failed(reason: .disabled), count: sent.count))
    }

    package mutating func finalized() -> Action {
        guard case .finalizing(_, _, let locks) = state else { invalid("finalized") }
        state = .unlocking
        return .unlock(locks, finalized: true)
    }

    package mutating func finalizeFailed() -> Action {
        guard case .finalizing(let plan, let attempt, let locks) = state else { invalid("finalizeFailed") }
        guard attempt < Self.finalizeAttempts else {
            state = .unlocking
            return .unlock(locks, finalized: false)
        }
        state = .backingOff(plan, attempt: attempt, locks: locks)
        return .backOff(DeliveryRun.retryDelay(attempt))
    }

    package mutating func backedOff() -> Action {
        guard case .backingOff(let plan, let attempt, let locks) = state else { invalid("backedOff") }
        state = .finalizing(plan, attempt: attempt + 1, locks: locks)
        return .finalize(plan, attempt: attempt + 1)
    }

    package mutating func unlocked() -> Action {
        guard case .unlocking = state else { invalid("unlocked") }
        return finish()
    }

    private mutating func finish() -> Action {
        state = .finished
        return .finish(tally)
    }

    /// A result reported in the wrong state is a bug in the dispatcher, not a runtime condition.
    private func invalid(_ event: String) -> Never {
        preconditionFailure("HandoffBatch: \(event) in state \(state)")
    }
}
