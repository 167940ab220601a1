import Foundation
import Synchronization

/// The per-address allowance of tool calls and relays (40 a minute by default). An empty address is never limited.
public protocol MCPCallLimiter: Sendable {
    /// Counts one call from `address`; false when it is over the allowance.
    func admit(_ address: String) async -> Bool
}

/// The allowance in this process's memory: a sliding minute per address (forgotten wholesale past 5,000 addresses).
/// Addresses are never returned or logged.
public final class InMemoryCallLimiter: MCPCallLimiter {
    let perMinute: Int
    let now: @Sendable () -> Date
    private let seen = Mutex<[String: [Date]]>([:])

    public init(perMinute: Int = 40, now: @escaping @Sendable () -> Date = { Date() }) {
        self.perMinute = perMinute
        self.now = now
    }

    public func admit(_ address: String) async -> Bool {
        guard !address.isEmpty else { return true }
        let t = now()
        return seen.withLock { seen in
            var recent = (seen[address] ?? []).filter { t.timeIntervalSince($0) < 60 }
            guard recent.count < perMinute else {
                seen[address] = recent
                return false
            }
            recent.append(t)
            seen[address] = recent
            if seen.count > 5000 { seen.removeAll() }
            return true
        }
    }
}
