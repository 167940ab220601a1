import Synchronization

/// A failure back-off switch shared by the calls of one Jev call site (verdict, materiality, …):
/// after a failed call, `allowsCalls` stays false for `backoff` (default 60 s), so an outage costs one
/// timeout per minute instead of one per request. Also home of the 0.55 confidence threshold.
public final class JevGate: Sendable {
    /// Below this, a choice/score answer is unusable (docs/COMPATIBILITY.md#jev).
    public static let confidenceThreshold: Double = 0.55
    /// The contract's back-off window.
    public static let defaultBackoff: Duration = .seconds(60)

    public let backoff: Duration
    private let closedUntil = Mutex<ContinuousClock.Instant?>(nil)

    public init(backoff: Duration = JevGate.defaultBackoff) {
        self.backoff = backoff
    }

    /// False while inside the back-off window after a failure.
    public var allowsCalls: Bool {
        closedUntil.withLock { until in
            guard let deadline = until else { return true }
            if ContinuousClock.now >= deadline {
                until = nil
                return true
            }
            return false
        }
    }

    /// Starts (or restarts) the back-off window.
    public func recordFailure() {
        let deadline = ContinuousClock.now.advanced(by: backoff)
        closedUntil.withLock { $0 = deadline }
    }

    /// Ends any back-off window.
    public func recordSuccess() {
        closedUntil.withLock { $0 = nil }
    }

    /// Records a call's outcome: transport, HTTP and parse failures start the back-off; success clears it;
    /// `noAPIKey` and `lowConfidence` leave it alone (nothing is wrong with the upstream).
    public func record<T>(_ result: Result<T, JevFailure>) {
        switch result {
        case .success: recordSuccess()
        case .failure(.noAPIKey), .failure(.lowConfidence): break
        case .failure: recordFailure()
        }
    }
}
