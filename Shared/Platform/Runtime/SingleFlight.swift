/// One computation per key at a time in this process: concurrent callers for the same key share the first
/// caller's result (cache stampede protection).
public actor SingleFlight<Key: Hashable & Sendable, Value: Sendable> {
    private var inFlight: [Key: Task<Value, Never>] = [:]

    public init() {}

    public func run(_ key: Key, _ work: @escaping @Sendable () async -> Value) async -> Value {
        if let existing = inFlight[key] { return await existing.value }
        let task = Task { await work() }
        inFlight[key] = task
        let value = await task.value
        inFlight[key] = nil
        return value
    }
}
