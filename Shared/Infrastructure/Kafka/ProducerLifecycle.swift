/// A producer's lifecycle as a pure state machine: running → closing (stop requested, sends refused) → flushing
/// (the poll thread flushes, bounded; at once when no broker is reachable) → closed (the poll thread stopped).
/// It also owns reachability: delivery counts and `BrokerLiveness`, driven by the liveness thread's turns and by
/// librdkafka's "all brokers down" reports. Each event returns the action to take; `KafkaProducer` holds it under
/// one lock and does the C calls, logging and metrics. Unit-tested without a broker, like `ConsumerLifecycle`.
package struct ProducerLifecycle: Sendable {
    package enum Phase: Sendable, Equatable {
        /// Accepting sends (unless no broker is reachable).
        case running
        /// Stop requested: sends are refused; the poll thread has not noticed yet. A later stop request replaces
        /// the flush bound.
        case closing(flushTimeout: Duration)
        /// The poll thread flushes what is outstanding; further stop requests change nothing.
        case flushing
        /// The poll thread stopped; the liveness thread stops too.
        case closed
    }

    /// Why a send is refused at once.
    package enum Refusal: Sendable, Equatable {
        case shutDown
        case brokersDown

        /// The error a refused send throws.
        package var error: KafkaError {
            switch self {
            case .shutDown: KafkaError(code: .state, detail: "producer is shut down", isRetriable: false)
            case .brokersDown: KafkaError(code: .allBrokersDown, detail: "no broker reachable")
            }
        }
    }

    package enum SendAction: Sendable, Equatable {
        /// Hand the message to librdkafka.
        case enqueue
        /// Throw `Refusal.error` without enqueuing.
        case refuse(Refusal)
    }

    package enum CloseAction: Sendable, Equatable {
        /// The first stop request: tell waiters of `run()`; the poll thread notices on its next turn.
        case stopPolling
        /// Already stopping or stopped.
        case none
    }

    /// What the poll thread does next.
    package enum PollAction: Sendable, Equatable {
        /// Serve delivery reports and callbacks for one poll interval.
        case poll
        /// Flush for at most this long, purge what is left, then report `stopped()`.
        case flush(timeout: Duration)
        /// Already flushing or closed (a second poll thread): nothing to do.
        case exit
    }

    /// One step of a bounded flush.
    package enum FlushStep: Sendable, Equatable {
        /// Nothing outstanding: everything was delivered.
        case done
        /// Flush (serving delivery reports) for at most this many milliseconds, then ask again.
        case flush(milliseconds: Int32)
        /// The deadline passed or no broker is reachable: waiting would not deliver anything.
        case incomplete
    }

    /// What the liveness thread does next.
    package enum LivenessAction: Sendable, Equatable {
        /// The producer is closed: the thread ends.
        case stop
        /// Wait until this instant, or until woken (an "all brokers down" report or the stop).
        case sleep(until: ContinuousClock.Instant)
        /// Probe the brokers and report with `probed(_:pending:now:)`; `pending` is the tick's own transition.
        case probe(pending: BrokerLiveness.Transition?)
        /// Reachability changed (already applied): log, set the metric, tell observers.
        case notify(BrokerLiveness.Transition)
    }

    /// How often reachability is checked (a probe is sent only when no delivery arrived since the last check).
    package static let livenessTick: Duration = .milliseconds(200)
    /// Reachability is watched while sends are recent (within this), outstanding, or the brokers are down; an idle
    /// producer does not probe (each probe is a metadata request the broker answers) until the next send.
    package static let watchWindow: Duration = .seconds(2)
    /// How long an idle liveness thread sleeps before looking again (a send or a report wakes it earlier).
    static let idleNap: Duration = .seconds(60)
    /// The longest slice of a flush, so that a broker going away is noticed while flushing.
    static let flushSliceMilliseconds: Int32 = 100

    package private(set) var phase = Phase.running
    /// `BrokerLiveness` found no broker reachable (and no delivery arrived since): sends are refused.
    package private(set) var brokersDown = false
    /// Successful deliveries so far: proof of life for `BrokerLiveness`.
    package private(set) var deliveries: UInt64 = 0
    private var liveness: BrokerLiveness
    /// librdkafka reported all brokers down: the liveness thread probes at once.
    private var suspectDown = false
    /// The probe under way was prompted by librdkafka's "all brokers down": if it fails, that is certain.
    private var probingReportedDown = false
    private var nextTick: ContinuousClock.Instant
    /// The last send admitted (a fresh producer counts as just used, so it learns its brokers' state at start).
    private var lastSend: ContinuousClock.Instant
    /// Whether the liveness thread ticks (false while idle: nothing sent recently, outstanding or down).
    private var watching = true

    package init(now: ContinuousClock.Instant = .now, policy: BrokerLiveness.Policy = .standard) {
        nextTick = now + Self.livenessTick
        lastSend = now
        liveness = BrokerLiveness(now: now, policy: policy)
    }

    /// Whether sends are accepted (false once stopping, or while no broker is reachable).
    package var acceptsSends: Bool { phase == .running && !brokersDown }

    package func send() -> SendAction {
        guard phase == .running else { return .refuse(.shutDown) }
        return brokersDown ? .refuse(.brokersDown) : .enqueue
    }

    /// A send was admitted at `now`; returns whether to wake the liveness thread (it was idle). Watching resumes
    /// with a fresh silence window: an idle stretch is no evidence either way.
    package mutating func sent(now: ContinuousClock.Instant) -> Bool {
        lastSend = now
        guard !watching else { return false }
        watching = true
        liveness.resume(now: now)
        nextTick = now + Self.livenessTick
        return true
    }

    /// A delivery report of a successful delivery (in any phase: a flush still delivers).
    package mutating func delivered() {
        deliveries &+= 1
    }

    package mutating func close(flushTimeout: Duration) -> CloseAction {
        switch phase {
        case .running:
            phase = .closing(flushTimeout: flushTimeout)
            return .stopPolling
        case .closing:
            phase = .closing(flushTimeout: flushTimeout)
            return .none
        case .flushing, .closed:
            return .none
        }
    }

    /// The poll thread's turn.
    package mutating func pollTurn() -> PollAction {
        switch phase {
        case .running: return .poll
        case .closing(let flushTimeout):
            phase = .flushing
            return .flush(timeout: flushTimeout)
        case .flushing, .closed: return .exit
        }
    }

    /// The poll thread finished; returns whether this is news (wake the liveness thread so it ends).
    package mutating func stopped() -> Bool {
        guard phase != .closed else { return false }
        phase = .closed
        return true
    }

    /// The next step of a flush bounded by `deadline`, with `outstanding` messages not yet reported.
    package func flushStep(outstanding: Int, deadline: ContinuousClock.Instant, now: ContinuousClock.Instant)
        -> FlushStep
    {
        guard outstanding > 0 else { return .done }
        if brokersDown || now >= deadline { return .incomplete }
        let remaining = (deadline - now).clampedMilliseconds
        return .flush(milliseconds: min(Self.flushSliceMilliseconds, remaining))
    }

    /// librdkafka reported all brokers down; returns whether to wake the liveness thread (not yet hinted).
    package mutating func allBrokersDownReported() -> Bool {
        guard !suspectDown else { return false }
        suspectDown = true
        return true
    }

    /// The liveness thread's turn: every tick without a delivery (or at once after an "all brokers down"
    /// report) it probes; a delivery since the last tick proves the brokers reachable. With nothing sent within
    /// `watchWindow`, nothing of `outstanding` (messages not yet reported) and the brokers up, it stops ticking
    /// until `sent(now:)` or a report wakes it.
    package mutating func livenessTurn(now: ContinuousClock.Instant, outstanding: Int = 0) -> LivenessAction {
        // Runs until the poll thread has stopped, so a final flush still learns that the brokers went away.
        if phase == .closed { return .stop }
        let hinted = suspectDown
        suspectDown = false
        if !hinted, !brokersDown, phase == .running, outstanding == 0, now - lastSend >= Self.watchWindow {
            watching = false
            return .sleep(until: now + Self.idleNap)
        }
        if !hinted, now < nextTick { return .sleep(until: nextTick) }
        nextTick = now + Self.livenessTick
        let (step, transition) = liveness.tick(deliveries: deliveries, now: now)
        probingReportedDown = hinted
        if hinted || step == .probe { return .probe(pending: transition) }
        guard let transition else { return .sleep(until: nextTick) }
        apply(transition)
        return .notify(transition)
    }

    /// A probe's outcome at `now`; returns the reachability change to notify (already applied), if any. An
    /// unanswered probe prompted by librdkafka's "all brokers down" report counts as `.unreachable`.
    package mutating func probed(
        _ probe: BrokerLiveness.Probe, pending: BrokerLiveness.Transition?, now: ContinuousClock.Instant
    ) -> BrokerLiveness.Transition? {
        let evidence: BrokerLiveness.Probe = probe == .unanswered && probingReportedDown ? .unreachable : probe
        probingReportedDown = false
        guard let transition = liveness.probed(evidence, deliveries: deliveries, now: now) ?? pending else {
            return nil
        }
        apply(transition)
        return transition
    }

    private mutating func apply(_ transition: BrokerLiveness.Transition) {
        brokersDown = transition == .down
    }
}
