import Foundation
import Synchronization

/// A per-UTC-day allowance in this process's memory: `take()` is true while some is left; it refills at 00:00 UTC.
public final class DailyAllowance: Sendable {
    public let cap: Int
    let now: @Sendable () -> Date
    private let state = Mutex<(day: Int, spent: Int)>((-1, 0))

    public init(cap: Int, now: @escaping @Sendable () -> Date = { Date() }) {
        self.cap = cap
        self.now = now
    }

    public func take() -> Bool {
        let day = Int(now().timeIntervalSince1970 / 86_400)
        return state.withLock { s in
            if s.day != day { s = (day, 0) }
            guard s.spent < cap else { return false }
            s.spent += 1
            return true
        }
    }
}
