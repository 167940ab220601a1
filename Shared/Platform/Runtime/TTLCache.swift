import Synchronization

/// An in-process cache whose entries expire after a time-to-live; the oldest entries are dropped past `capacity`.
/// For small per-process memos (verdicts, materiality); caches shared by replicas live in Redis.
public final class TTLCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        let value: Value
        let expires: ContinuousClock.Instant
    }
    private let entries = Mutex<[Key: Entry]>([:])
    private let ttl: Duration
    private let capacity: Int

    public init(ttl: Duration, capacity: Int = 10_000) {
        self.ttl = ttl
        self.capacity = capacity
    }

    public subscript(key: Key) -> Value? {
        let now = ContinuousClock.now
        return entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            if entry.expires <= now {
                entries[key] = nil
                return nil
            }
            return entry.value
        }
    }

    public func set(_ key: Key, _ value: Value, ttl: Duration? = nil) {
        let now = ContinuousClock.now
        entries.withLock { entries in
            if entries.count >= capacity {
                entries = entries.filter { $0.value.expires > now }
                if entries.count >= capacity, let oldest = entries.min(by: { $0.value.expires < $1.value.expires }) {
                    entries[oldest.key] = nil
                }
            }
            entries[key] = Entry(value: value, expires: now + (ttl ?? self.ttl))
        }
    }

    public func removeAll() { entries.withLock { $0.removeAll() } }
}
