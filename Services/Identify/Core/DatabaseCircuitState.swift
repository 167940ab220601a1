/// Whether Postgres is known to be down, decided from recent outcomes of database work, with no clock or lock of its
/// own: `threshold` retriable failures in a row (none further apart than `window`) open it; while open, one attempt
/// per `probeInterval` is let through as a probe; any success closes it. A `threshold` of 0 never opens it.
public struct DatabaseCircuitState: Sendable, Equatable {
    /// What a call changed, for the holder's gauge and log line.
    public enum Transition: Sendable, Equatable {
        case none, opened, closed
    }

    public let threshold: Int
    public let window: Duration
    public let probeInterval: Duration
    public private(set) var isOpen = false
    private var failures = 0
    private var lastFailure: ContinuousClock.Instant?
    private var lastProbe: ContinuousClock.Instant?

    public init(threshold: Int = 3, window: Duration = .seconds(10), probeInterval: Duration = .seconds(1)) {
        self.threshold = threshold
        self.window = window
        self.probeInterval = probeInterval
    }

    /// Whether an attempt may touch the database at `now`: always while closed; while open, one probe per
    /// `probeInterval`.
    public mutating func allowsAttempt(now: ContinuousClock.Instant) -> Bool {
        guard isOpen else { return true }
        if let last = lastProbe, now - last < probeInterval { return false }
        lastProbe = now
        return true
    }

    /// The database answered.
    public mutating func recordSuccess() -> Transition {
        let wasOpen = isOpen
        isOpen = false
        failures = 0
        lastFailure = nil
        lastProbe = nil
        return wasOpen ? .closed : .none
    }

    /// A retriable database failure at `now`.
    public mutating func recordFailure(now: ContinuousClock.Instant) -> Transition {
        if let last = lastFailure, now - last > window { failures = 0 }
        failures += 1
        lastFailure = now
        guard threshold > 0, !isOpen, failures >= threshold else { return .none }
        isOpen = true
        lastProbe = now
        return .opened
    }
}
