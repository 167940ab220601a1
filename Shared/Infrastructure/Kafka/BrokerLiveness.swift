/// Decides whether a client can reach its brokers, from delivery progress, librdkafka's own view of its broker
/// connections and periodic probes. Pure logic (the caller passes the time; no I/O), driven by the producer's
/// liveness thread and unit-tested with a fake clock.
///
/// A refused connection makes librdkafka report "all brokers down" (its own connection state): a probe failing then
/// marks the brokers down at once. A broker that is alive at the TCP level and does not answer (frozen, partitioned,
/// overloaded to a standstill) is reported by nothing: requests simply wait. So every `tick`, if no delivery report
/// arrived since the last tick, the client probes (a metadata request with a short timeout). An unanswered probe is
/// weak evidence — a CPU-starved process misses probes too — so the brokers count as down only after a window of
/// it: `Policy.failedProbes` unanswered probes in a row and no proof of life for `Policy.silence`. Any delivery or
/// answered probe is proof of life and marks them up again at once, so a busy client rarely probes at all.
package struct BrokerLiveness: Sendable, Equatable {
    /// What the driver should do after a tick.
    package enum Step: Sendable, Equatable {
        /// Nothing to do until the next tick.
        case wait
        /// Send a probe and report its outcome with `probed(_:deliveries:now:)`.
        case probe
    }

    /// A change of reachability to act on (log, refuse or accept sends).
    package enum Transition: Sendable, Equatable {
        case down, up
    }

    /// How a probe ended.
    package enum Probe: Sendable, Equatable {
        /// A broker answered.
        case answered
        /// No answer within the probe's timeout: the broker may be frozen, or this process starved.
        case unanswered
        /// librdkafka has no usable broker connection (refused, reset): certain, not a matter of timing.
        case unreachable
    }

    /// How much evidence of silence marks the brokers down.
    package struct Policy: Sendable, Equatable {
        /// Unanswered probes in a row.
        package var failedProbes: Int
        /// Time since the last proof of life (a delivery or an answered probe).
        package var silence: Duration

        package init(failedProbes: Int, silence: Duration) {
            self.failedProbes = max(1, failedProbes)
            self.silence = silence
        }

        /// Two unanswered probes and a second of silence: a frozen broker is refused within about 1.2 s, while a
        /// probe missed under CPU starvation alone changes nothing.
        package static let standard = Policy(failedProbes: 2, silence: .seconds(1))
    }

    package private(set) var isDown = false
    private let policy: Policy
    private var seenDeliveries: UInt64 = 0
    private var lastLife: ContinuousClock.Instant
    private var unansweredInARow = 0

    package init(now: ContinuousClock.Instant, policy: Policy = .standard) {
        self.policy = policy
        self.lastLife = now
    }

    /// Called every tick with the count of successful deliveries so far.
    package mutating func tick(deliveries: UInt64, now: ContinuousClock.Instant) -> (Step, Transition?) {
        if deliveries != seenDeliveries {
            seenDeliveries = deliveries
            return (.wait, alive(now))
        }
        return (.probe, nil)
    }

    /// Watching resumes at `now` after an idle stretch without probes: the silence window starts again.
    package mutating func resume(now: ContinuousClock.Instant) {
        guard !isDown else { return }
        lastLife = now
        unansweredInARow = 0
    }

    /// The outcome of a probe, with the count of successful deliveries when it ended.
    package mutating func probed(_ probe: Probe, deliveries: UInt64, now: ContinuousClock.Instant) -> Transition? {
        if probe == .answered || deliveries != seenDeliveries {
            seenDeliveries = deliveries
            return alive(now)
        }
        unansweredInARow += 1
        let enough =
            probe == .unreachable
            || (unansweredInARow >= policy.failedProbes && now - lastLife >= policy.silence)
        guard enough, !isDown else { return nil }
        isDown = true
        return .down
    }

    private mutating func alive(_ now: ContinuousClock.Instant) -> Transition? {
        lastLife = now
        unansweredInARow = 0
        guard isDown else { return nil }
        isDown = false
        return .up
    }
}
