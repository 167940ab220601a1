/// An adaptive cap on the requests one gateway has in flight to one service, so overload is refused at the door
/// (a prompt 503) instead of queueing in Kafka until budgets run out. Pure logic, held under a lock by
/// `RequestReplyClient`, unit-tested without a broker.
///
/// The signal is the service's own queueing delay, reported in each reply (`mv-queued-ms`: from the gateway's send
/// to the handler's start), not the round trip: a handler waiting on a slow upstream is working, not queued, so
/// I/O-bound routes keep their full concurrency. As in CoDel, only a standing queue counts: when every reply of an
/// `interval` (and every timeout counts as one) was queued longer than `target`, the cap shrinks multiplicatively;
/// a single slow reply among fast ones (scheduling jitter on a busy host) does not. Every reply queued less than
/// `target` grows the cap additively while it is at least half used, and while the last interval showed no
/// standing queue a request over the cap raises it by one instead of being refused, so the cap follows demand back
/// up at once after an overload (or a replica's death) has passed, up to `maximum` (where it starts). Each further
/// interval without a standing queue doubles the cap, so within about a second of replies it is back at `maximum`,
/// where it was before the overload: a cap left low would shed at a load the fresh gateway served, at the first
/// jittery interval.
package struct AdmissionLimit: Sendable, Equatable {
    package let target: Duration
    package let minimum: Int
    package let maximum: Int
    package private(set) var limit: Double
    package private(set) var inFlight = 0
    package let interval: Duration
    private var windowEnd: ContinuousClock.Instant?
    /// Whether every reply of the current window so far was queued longer than `target`.
    private var windowCongested = true
    /// The verdict of the last closed window: a standing queue.
    package private(set) var isQueueing = false

    package static let decrease = 0.8
    package static let increase = 0.5
    /// The growth per interval without a standing queue that follows another such interval.
    package static let recovery = 2.0

    package init(target: Duration, minimum: Int = 16, maximum: Int, interval: Duration = .milliseconds(100)) {
        self.target = target
        self.interval = interval
        self.minimum = max(1, min(minimum, maximum))
        self.maximum = max(1, maximum)
        self.limit = Double(self.maximum)
    }

    /// Admits one request unless the cap is reached.
    package mutating func acquire() -> Bool {
        if inFlight >= Int(limit) {
            guard !isQueueing, Int(limit) < maximum else { return false }
            limit += 1
        }
        inFlight += 1
        return true
    }

    /// How an admitted request ended.
    package enum Completion: Sendable, Equatable {
        /// Answered; the service's queueing delay when it reported one.
        case replied(queued: Duration?)
        /// No reply within the budget: the service is behind (or gone).
        case timedOut
        /// Failed before reaching the service (broker down, cancelled): says nothing about its load.
        case failed
    }

    package mutating func release(_ completion: Completion, now: ContinuousClock.Instant) {
        let wasInFlight = inFlight
        inFlight = max(0, inFlight - 1)
        let congested: Bool
        switch completion {
        case .replied(let queued?): congested = queued > target
        case .replied(nil), .failed: return
        case .timedOut: congested = true
        }
        if !congested {
            windowCongested = false
            if Double(wasInFlight) * 2 >= limit { limit = min(Double(maximum), limit + Self.increase) }
        }
        guard let end = windowEnd else {
            windowEnd = now + interval
            windowCongested = congested
            return
        }
        guard now >= end else { return }
        let wasQueueing = isQueueing
        isQueueing = windowCongested
        if windowCongested {
            limit = max(Double(minimum), limit * Self.decrease)
        } else if !wasQueueing {
            limit = min(Double(maximum), limit * Self.recovery)
        }
        windowEnd = now + interval
        windowCongested = true
    }
}
