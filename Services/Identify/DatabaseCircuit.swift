import IdentifyCore
import Postgres
import Runtime
import Synchronization

/// The process's one `DatabaseCircuitState` (IdentifyCore) under a lock, fed by the outcomes of recording finds:
/// while it is open the after-reply effects go straight to their effects topic instead of spending their inline attempt
/// on retries. Only retriable Postgres failures count; the gauge and the log line follow its transitions.
final class DatabaseCircuit: Sendable {
    private let state: Mutex<DatabaseCircuitState>
    private let logger: Logger

    private static let openGauge = MetricsRegistry.shared.gauge(
        "identify_database_circuit_open", help: "1 while Identify treats Postgres as down (effects handed off at once)."
    )

    init(threshold: Int = 3, logger: Logger) {
        state = Mutex(DatabaseCircuitState(threshold: threshold))
        self.logger = logger
        Self.openGauge.set(0)
    }

    /// Whether an attempt should touch the database now (see `DatabaseCircuitState.allowsAttempt`).
    func allowsAttempt() -> Bool {
        state.withLock { $0.allowsAttempt(now: .now) }
    }

    /// The database answered: closes the circuit.
    func recordSuccess() {
        if state.withLock({ $0.recordSuccess() }) == .closed {
            Self.openGauge.set(0)
            logger.info("database reachable again; effects are applied inline")
        }
    }

    /// An attempt failed; only a retriable database failure counts towards opening.
    func recordFailure(_ error: any Error) {
        guard let failure = error as? PostgresError, failure.isRetriable else { return }
        if state.withLock({ $0.recordFailure(now: .now) }) == .opened {
            Self.openGauge.set(1)
            logger.warning("database looks down; handing effects off at once", [LogKeys.error: .string("\(error)")])
        }
    }
}
