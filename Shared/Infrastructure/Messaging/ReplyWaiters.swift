import Kafka
import Synchronization

/// The gateway's table of requests waiting for replies, keyed by correlation id, plus a bounded memory of
/// recently finished ids so that a reply nobody waits for can be told apart: late (its request timed out or was
/// cancelled), duplicate (already answered) or unknown. Deadlines given at registration are kept in one queue per
/// budget; `expire(now:)` answers the passed ones `.timedOut` (one periodic sweep instead of a timer task per request,
/// parked in `untilWaiting()` while nothing waits) and sends the due hedges (second copies of idempotent reads still
/// unanswered).
package final class ReplyWaiters: Sendable {
    package enum Outcome: Sendable {
        case reply(KafkaMessage)
        case timedOut
        case cancelled
        case failed(String)
        case closed
    }

    package enum Registration: Sendable {
        case registered
        case overCapacity
        case closed
    }

    /// Why a reply was dropped.
    package enum Drop: String, Sendable {
        case late, duplicate, unknown
        /// The slower of a hedged request's two copies (the first reply won).
        case hedgeLoser = "hedge_loser"
    }

    /// More copies of the request to send at `at` unless it was answered by then; every copy carries the same
    /// correlation id, so the first reply wins and the others are dropped as `.hedgeLoser`.
    package struct Hedge: Sendable {
        let at: ContinuousClock.Instant
        let send: @Sendable () -> Void

        package init(at: ContinuousClock.Instant, send: @escaping @Sendable () -> Void) {
            self.at = at
            self.send = send
        }
    }

    private enum Slot {
        case pending(CheckedContinuation<Outcome, Never>?)
        case resolved(Outcome)
    }

    private enum Finished {
        case answered, answeredHedged, expired
    }

    private struct State {
        var slots: [String: Slot] = [:]
        var finished: [String: Finished] = [:]
        var finishedOrder: [String] = []
        var finishedHead = 0
        var closed = false
        /// Registered deadlines by budget (a handful of route budgets); answered requests' entries are dropped when
        /// they come due.
        var deadlines: [DeadlineQueue] = []
        /// Hedges not yet due, by correlation id.
        var hedges: [String: Hedge] = [:]
        /// Requests whose second copy was sent: a second reply is a hedge loser, not a duplicate.
        var hedged: Set<String> = []
        /// The sweep, parked in `untilWaiting()` while no request waits.
        var sweeper: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())
    private let memory: Int

    /// - Parameter memory: how many finished ids are remembered for classifying dropped replies.
    package init(memory: Int = 16_384) {
        self.memory = max(memory, 1)
    }

    package var count: Int { state.withLock { $0.slots.count } }

    /// Reserves a slot for `id` unless `limit` requests are already waiting or the table is closed. With a
    /// `timeout` (its budget, ending at `deadline`), `expire(now:)` answers it `.timedOut` once the deadline passed,
    /// late by at most the skew between requests of that budget registering out of order. With a `hedge`,
    /// `expire(now:)` sends it once due if the request is still waiting.
    package func register(
        _ id: String, limit: Int, timeout: (budget: Duration, deadline: ContinuousClock.Instant)? = nil,
        hedge: Hedge? = nil
    ) -> Registration {
        let (registration, sweeper) = state.withLock { s -> (Registration, CheckedContinuation<Void, Never>?) in
            if s.closed { return (.closed, nil) }
            if s.slots.count >= limit { return (.overCapacity, nil) }
            s.slots[id] = .pending(nil)
            if let hedge { s.hedges[id] = hedge }
            if let timeout {
                let index =
                    s.deadlines.firstIndex { $0.budget == timeout.budget }
                    ?? {
                        s.deadlines.append(DeadlineQueue(budget: timeout.budget))
                        return s.deadlines.count - 1
                    }()
                s.deadlines[index].entries.append((timeout.deadline, id))
            }
            defer { s.sweeper = nil }
            return (.registered, s.sweeper)
        }
        sweeper?.resume()
        return registration
    }

    /// Returns at once while a request waits (or is resolved but not yet collected); otherwise parks until one
    /// registers, the table closes or the calling task is cancelled, so the periodic sweep costs nothing while
    /// idle. One caller at a time (the sweep).
    package func untilWaiting() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.closed || !s.slots.isEmpty || Task.isCancelled { return true }
                    // Every entry left belongs to a finished request: nothing for the sweep to do.
                    s.deadlines.removeAll()
                    s.sweeper = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { s in
                defer { s.sweeper = nil }
                return s.sweeper
            }?.resume()
        }
    }

    /// Whether `close()` was called.
    package var isClosed: Bool { state.withLock { $0.closed } }

    /// Answers `.timedOut` every waiting request whose registered deadline is at or before `now`, and sends the
    /// hedges due by `now` of requests still waiting (outside the lock).
    package func expire(now: ContinuousClock.Instant) {
        let (due, hedges) = state.withLock { s -> ([String], [Hedge]) in
            var due: [String] = []
            for index in s.deadlines.indices { s.deadlines[index].popDue(now, into: &due) }
            var hedges: [Hedge] = []
            for (id, hedge) in s.hedges where hedge.at <= now {
                s.hedges[id] = nil
                if case .pending = s.slots[id] {
                    s.hedged.insert(id)
                    hedges.append(hedge)
                }
            }
            return (due.filter { if case .pending = s.slots[$0] { true } else { false } }, hedges)
        }
        for hedge in hedges { hedge.send() }
        for id in due { resolve(id, .timedOut) }
    }

    /// Makes `id`'s hedge due now (the next sweep sends it) if it is still pending.
    package func hedgeNow(_ id: String, now: ContinuousClock.Instant = .now) {
        state.withLock { s in
            guard let hedge = s.hedges[id] else { return }
            s.hedges[id] = Hedge(at: now, send: hedge.send)
        }
    }

    /// Waits for `id`'s outcome; cancellation of the waiting task resolves it as `.cancelled`.
    package func wait(_ id: String) async -> Outcome {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                let ready: Outcome? = state.withLock { s in
                    switch s.slots[id] {
                    case .pending(nil):
                        s.slots[id] = .pending(continuation)
                        return nil
                    case .resolved(let outcome):
                        s.slots[id] = nil
                        return outcome
                    case .pending(.some), nil:
                        return .closed
                    }
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            resolve(id, .cancelled)
        }
    }

    /// Resolves `id` if it is still waiting; returns false when it was already resolved or unknown.
    @discardableResult
    package func resolve(_ id: String, _ outcome: Outcome) -> Bool {
        let (resolved, continuation): (Bool, CheckedContinuation<Outcome, Never>?) = state.withLock { s in
            guard case .pending(let continuation) = s.slots[id] else { return (false, nil) }
            if continuation != nil {
                s.slots[id] = nil
            } else {
                s.slots[id] = .resolved(outcome)
            }
            s.hedges[id] = nil
            let hedged = s.hedged.remove(id) != nil
            if case .reply = outcome {
                remember(id, hedged ? .answeredHedged : .answered, in: &s)
            } else {
                remember(id, .expired, in: &s)
            }
            return (true, continuation)
        }
        continuation?.resume(returning: outcome)
        return resolved
    }

    /// Hands a reply to its waiter; returns why it was dropped when nobody waits for it.
    package func deliver(_ message: KafkaMessage, correlationId: String?) -> Drop? {
        guard let correlationId else { return .unknown }
        if resolve(correlationId, .reply(message)) { return nil }
        return state.withLock { s in
            switch s.finished[correlationId] {
            case .answered: .duplicate
            case .answeredHedged: .hedgeLoser
            case .expired: .late
            case nil: .unknown
            }
        }
    }

    /// Forgets a registration whose request was never sent.
    package func unregister(_ id: String) {
        state.withLock { s in
            s.slots[id] = nil
            s.hedges[id] = nil
        }
    }

    /// Refuses new registrations and resolves every waiting request as `.closed`.
    package func close() {
        state.withLock { s in
            s.closed = true
            defer { s.sweeper = nil }
            return s.sweeper
        }?.resume()
        resolveAll(.closed)
    }

    /// Resolves every waiting request with `outcome` (e.g. `.failed` when no broker is reachable: no reply can come).
    package func resolveAll(_ outcome: Outcome) {
        let ids = state.withLock { Array($0.slots.keys) }
        for id in ids { resolve(id, outcome) }
    }

    private func remember(_ id: String, _ kind: Finished, in s: inout State) {
        if s.finished.updateValue(kind, forKey: id) == nil { s.finishedOrder.append(id) }
        while s.finishedOrder.count - s.finishedHead > memory {
            s.finished[s.finishedOrder[s.finishedHead]] = nil
            s.finishedHead += 1
        }
        if s.finishedHead > 4096, s.finishedHead * 2 > s.finishedOrder.count {
            s.finishedOrder.removeFirst(s.finishedHead)
            s.finishedHead = 0
        }
    }
}

/// Deadlines of requests with one budget, in registration order: deadlines of equal budgets are registered (nearly)
/// in order, so the earliest is at the front and expiry pops from there without sorting.
private struct DeadlineQueue {
    let budget: Duration
    var entries: [(deadline: ContinuousClock.Instant, id: String)] = []
    var head = 0

    init(budget: Duration) { self.budget = budget }

    /// Removes and returns the ids at the front whose deadline is at or before `now`.
    mutating func popDue(_ now: ContinuousClock.Instant, into due: inout [String]) {
        while head < entries.count, entries[head].deadline <= now {
            due.append(entries[head].id)
            head += 1
        }
        if head > 1024, head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }
}
