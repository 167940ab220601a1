import Postgres
import Runtime
import Synchronization

/// Whether Postgres is known to be down, one state for the whole process, decided from recent outcomes of recording
/// finds: `threshold` database failures in a row (none older than `window`) open it, and while open the
/// after-reply effects go straight to their effects topic instead of spending their inline attempt on retries.
/// Every `probeInterval` one attempt is let through as a probe; any database success closes it. A `threshold` of 0
/// never opens it.
final class DatabaseCircuit: Sendable {
    private struct State {
        var failures = 0
        var lastFailure: ContinuousClock.Instant?
        var open = false
        var lastProbe: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    private let threshold: Int
    private let window: Duration
    private let probeInterval: Duration
    private let logger: Logger

    private static let openGauge = MetricsRegistry.shared.gauge(
        "identify_database_circuit_open", help: "1 while Identify treats Postgres as down (effects handed off at once)."
    )

    init(threshold: Int = 3, window: Duration = .seconds(10), probeInterval: Duration = .seconds(1), logger: Logger) {
        self.threshold = threshold
        self.window = window
        self.probeInterval = probeInterval
        self.logger = logger
        Self.openGauge.set(0)
    }

    /// Whether an attempt should touch the database now: always while closed; while open, one probe per
    /// `probeInterval`.
    func allowsAttempt(now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { state in
            guard state.open else { return true }
            if let last = state.lastProbe, now - last < probeInterval { return false }
            state.lastProbe = now
            return true
        }
    }

    /// The database answered: closes the circuit.
    func recordSuccess() {
        let closed = state.withLock { state in
            defer { state = State() }
            return state.open
        }
        if closed {
            Self.openGauge.set(0)
            logger.info("database reachable again; effects are applied inline")
        }
    }

    /// An attempt failed; only a retriable database failure counts towards opening.
    func recordFailure(_ error: any Error, now: ContinuousClock.Instant = .now) {
        guard let failure = error as? PostgresError, failure.isRetriable else { return }
        let opened = state.withLock { state -> Bool in
            if let last = state.lastFailure, now - last > window { state.failures = 0 }
            state.failures += 1
            state.lastFailure = now
            guard threshold > 0, !state.open, state.failures >= threshold else { return false }
            state.open = true
            state.lastProbe = now
            return true
        }
        if opened {
            Self.openGauge.set(1)
            logger.warning("database looks down; handing effects off at once", [LogKeys.error: .string("\(error)")])
        }
    }

    /// Whether the circuit is open (for tests and logs).
    var isOpen: Bool { state.withLock { $0.open } }
}
