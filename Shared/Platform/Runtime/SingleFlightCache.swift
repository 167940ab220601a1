/// A per-key TTL cache where concurrent callers for a missing key share one computation: `TTLCache` for the
/// values, `SingleFlight` for the computations (which run in their own task, so a caller that is cancelled does
/// not cancel it for the others). Entries live `ttl` from the moment they were computed.
public final class SingleFlightCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let entries: TTLCache<Key, Value>
    private let flights = SingleFlight<Key, Value>()

    public init(ttl: Duration, capacity: Int = 10_000) {
        entries = TTLCache(ttl: ttl, capacity: max(1, capacity))
    }

    /// The cached value for `key`, the in-flight computation's result, or a new computation's result.
    /// A result is stored only when `keep` says so.
    public func value(
        for key: Key, keep: @escaping @Sendable (Value) -> Bool = { _ in true },
        compute: @escaping @Sendable () async -> Value
    ) async -> Value {
        if let cached = entries[key] { return cached }
        return await flights.run(key) { [entries] in
            let value = await compute()
            if keep(value) { entries.set(key, value) }
            return value
        }
    }

    public func removeAll() { entries.removeAll() }
}
