/// Decides whether a client can reach its brokers, from delivery progress and periodic probes. Pure logic (no
/// clock, no I/O), driven by the producer's liveness thread and unit-tested without a broker.
///
/// A refused connection makes librdkafka report "all brokers down", but a broker that is alive at the TCP level and
/// does not answer (frozen, partitioned, overloaded to a standstill) is reported by nothing: requests simply wait.
/// So every `tick`, if no delivery report arrived since the last tick, the client probes (a metadata request with
/// a short timeout). A probe that fails while no delivery arrived either marks the brokers down; any success or
/// any delivery marks them up again. Deliveries count as proof of life, so a busy client rarely probes at all.
package struct BrokerLiveness: Sendable, Equatable {
    /// What the driver should do after a tick.
    package enum Step: Sendable, Equatable {
        /// Nothing to do until the next tick.
        case wait
        /// Send a probe and report its outcome with `probed(succeeded:deliveries:)`.
        case probe
    }

    /// A change of reachability to act on (log, refuse or accept sends, fail waiters).
    package enum Transition: Sendable, Equatable {
        case down, up
    }

    package private(set) var isDown = false
    private var seenDeliveries: UInt64 = 0

    package init() {}

    /// Called every tick with the count of successful deliveries so far.
    package mutating func tick(deliveries: UInt64) -> (Step, Transition?) {
        if deliveries != seenDeliveries {
            seenDeliveries = deliveries
            return (.wait, markUp())
        }
        return (.probe, nil)
    }

    /// The outcome of a probe, with the count of successful deliveries when it ended.
    package mutating func probed(succeeded: Bool, deliveries: UInt64) -> Transition? {
        if succeeded || deliveries != seenDeliveries {
            seenDeliveries = deliveries
            return markUp()
        }
        guard !isDown else { return nil }
        isDown = true
        return .down
    }

    private mutating func markUp() -> Transition? {
        guard isDown else { return nil }
        isDown = false
        return .up
    }
}
