/// An adaptive cap on the requests one gateway has in flight to one service, so overload is refused at the door
/// (a prompt 503) instead of queueing in Kafka until budgets run out. Pure logic, held under a lock by
/// `RequestReplyClient`, unit-tested without a broker.
///
/// The signal is the service's own queueing delay, reported in each reply (`mv-queued-ms`: from the gateway's send
/// to the handler's start), not the round trip: a handler waiting on a slow upstream is working, not queued, so
/// I/O-bound routes keep their full concurrency. A reply queued longer than `target`, or no reply at all, shrinks
/// the cap multiplicatively (at most once per `cooldown`: the requests admitted before a decrease still report the
/// old queue); every reply queued less than that grows it additively while the cap is at least half used, up to
/// `maximum` (where it starts).
package struct AdmissionLimit: Sendable, Equatable {
    package let target: Duration
    package let minimum: Int
    package let maximum: Int
    package private(set) var limit: Double
    package private(set) var inFlight = 0
    package let cooldown: Duration
    private var nextDecrease: ContinuousClock.Instant?

    package static let decrease = 0.8
    package static let increase = 0.5

    package init(target: Duration, minimum: Int = 16, maximum: Int, cooldown: Duration = .milliseconds(50)) {
        self.target = target
        self.cooldown = cooldown
        self.minimum = max(1, min(minimum, maximum))
        self.maximum = max(1, maximum)
        self.limit = Double(self.maximum)
    }

    /// Admits one request unless the cap is reached.
    package mutating func acquire() -> Bool {
        guard inFlight < Int(limit) else { return false }
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
        if congested {
            if let nextDecrease, now < nextDecrease { return }
            limit = max(Double(minimum), limit * Self.decrease)
            nextDecrease = now + cooldown
        } else if Double(wasInFlight) * 2 >= limit {
            limit = min(Double(maximum), limit + Self.increase)
        }
    }
}
