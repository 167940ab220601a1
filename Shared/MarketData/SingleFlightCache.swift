/// A per-key TTL cache where concurrent callers for a missing key share one computation.
///
/// The computation runs in its own task, so a caller that is cancelled does not cancel it for the others.
/// Entries live `ttl` from the moment they were computed; past `capacity`, expired entries go first, then the
/// ones closest to expiring.
actor SingleFlightCache<Value: Sendable> {
    private struct Entry {
        var value: Value
        var expires: ContinuousClock.Instant
    }

    private let ttl: Duration
    private let capacity: Int
    private var entries: [String: Entry] = [:]
    private var inFlight: [String: Task<Value, Never>] = [:]

    init(ttl: Duration, capacity: Int = 10_000) {
        self.ttl = ttl
        self.capacity = max(1, capacity)
    }

    /// The cached value for `key`, the in-flight computation's result, or a new computation's result.
    /// A result is stored only when `keep` says so.
    func value(
        for key: String, keep: @Sendable (Value) -> Bool = { _ in true },
        compute: @escaping @Sendable () async -> Value
    ) async -> Value {
        if let entry = entries[key] {
            if entry.expires > ContinuousClock.now { return entry.value }
            entries[key] = nil
        }
        if let running = inFlight[key] { return await running.value }
        let task = Task.detached { await compute() }
        inFlight[key] = task
        let value = await task.value
        inFlight[key] = nil
        if keep(value) { store(value, for: key) }
        return value
    }

    func removeAll() {
        entries.removeAll()
    }

    private func store(_ value: Value, for key: String) {
        let now = ContinuousClock.now
        entries[key] = Entry(value: value, expires: now.advanced(by: ttl))
        guard entries.count > capacity else { return }
        entries = entries.filter { $0.value.expires > now }
        if entries.count > capacity {
            let excess = entries.count - capacity
            for victim in entries.sorted(by: { $0.value.expires < $1.value.expires }).prefix(excess) {
                entries[victim.key] = nil
            }
        }
    }
}
