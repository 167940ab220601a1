/// A request pace shared by every caller of a provider (the Rating service gives one over Redis, so all replicas
/// share the plan's limit).
public protocol MarketDataPace: Sendable {
    /// Waits for the next request slot; false (at once, without waiting) when the slot comes after `deadline`.
    func acquire(_ deadline: ContinuousClock.Instant?) async -> Bool
}
