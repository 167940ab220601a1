/// One build per key at a time in this replica: the first caller starts it, callers that arrive meanwhile await its
/// outcome (`started` tells the first apart, so only it is charged).
actor BuildFlights<Outcome: Sendable> {
    private var running: [String: Task<Outcome, Never>] = [:]

    func run(_ key: String, _ work: @escaping @Sendable () async -> Outcome) async -> (Outcome, started: Bool) {
        if let task = running[key] { return (await task.value, false) }
        let task = Task { await work() }
        running[key] = task
        let outcome = await task.value
        running[key] = nil
        return (outcome, true)
    }
}
