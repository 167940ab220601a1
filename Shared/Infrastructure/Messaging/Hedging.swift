import Runtime
import Synchronization

/// How the gateway hedges idempotent reads (`OutgoingCommand.isIdempotentRead`): when the first copy has not
/// answered within the command's `HedgeDelay`, it is sent again to other partitions of the command topic (owned, most
/// likely, by another replica; the topics' partition counts are read from the cluster at start) and the first reply
/// wins.
public struct HedgeSettings: Sendable {
    /// Off: every command is sent once.
    public var enabled: Bool
    package var policy: HedgeDelay.Policy

    public init(enabled: Bool = true) {
        self.init(enabled: enabled, policy: .standard)
    }

    package init(enabled: Bool, policy: HedgeDelay.Policy) {
        self.enabled = enabled
        self.policy = policy
    }

    /// `GATEWAY_HEDGING` (`off` disables hedging; default on).
    public static func fromEnvironment(_ environment: Environment) -> HedgeSettings {
        HedgeSettings(enabled: environment.get("GATEWAY_HEDGING")?.lowercased() != "off")
    }
}

/// Per-command hedge delays under one lock, and the choice of the second copy's partition.
final class Hedger: Sendable {
    let settings: HedgeSettings
    /// Partition counts of the topics commands go to, read from the cluster's metadata at start: a hedge goes only
    /// to a partition known to exist.
    private let partitionCounts: [String: Int32]
    private let delays = Mutex<[String: HedgeDelay]>([:])
    /// One budget for all hedged commands: hedges stay about a tenth of hedgeable requests.
    private let budget = Mutex(HedgeBudget())

    init(settings: HedgeSettings, partitionCounts: [String: Int32]) {
        self.settings = settings
        self.partitionCounts = partitionCounts
    }

    /// How long a request of `command` to `topic` waits before its hedge; nil when hedging is off or the topic has
    /// no other partition (or an unknown count).
    func delay(for command: String, topic: String) -> Duration? {
        guard settings.enabled, partitionCounts[topic, default: 0] > 1 else { return nil }
        budget.withLock { $0.requested() }
        return delays.withLock { $0[command]?.delay } ?? settings.policy.initial
    }

    /// Whether a due hedge may go out (`HedgeBudget`); false means this request waits for its first copy alone.
    func mayHedge() -> Bool {
        budget.withLock { $0.spend() }
    }

    /// Records how long a request of `command` waited for its reply.
    func observe(_ command: String, _ latency: Duration) {
        guard settings.enabled else { return }
        delays.withLock { all in
            all[command, default: HedgeDelay(policy: settings.policy)].observe(latency)
        }
    }

    /// The hedge's partitions of `topic`: the next one and the one half the topic away from the first copy's, so
    /// that the hedge reaches another replica whether the group spread the partitions round-robin (neighbours
    /// differ) or in ranges (halves differ). When the first copy's delivery has not been reported yet (its
    /// partition unknown, a slow broker), every partition: one of them is certainly another replica's.
    func partitions(of topic: String, awayFrom first: Int32?) -> [Int32] {
        let count = partitionCounts[topic, default: 1]
        guard count > 1 else { return [] }
        guard let first, first >= 0, first < count else { return Array(0..<count) }
        let next = (first + 1) % count
        let opposite = (first + count / 2) % count
        return opposite == next || opposite == first ? [next] : [next, opposite]
    }
}

/// The partition the first copy of a hedgeable request landed on, from its delivery report (-1 until known).
final class FirstCopy: Sendable {
    private let value = Atomic<Int32>(-1)

    func landed(on partition: Int32) { value.store(partition, ordering: .relaxed) }

    var partition: Int32? {
        let partition = value.load(ordering: .relaxed)
        return partition >= 0 ? partition : nil
    }
}
