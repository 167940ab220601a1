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

/// Per-command hedge delays under one lock, per-topic partition stalls (`PartitionStalls`), and the choice of the
/// second copy's partition.
final class Hedger: Sendable {
    let settings: HedgeSettings
    /// Partition counts of the topics commands go to, read from the cluster's metadata at start: a hedge goes only
    /// to a partition known to exist.
    private let partitionCounts: [String: Int32]
    private let delays = Mutex<[String: HedgeDelay]>([:])
    /// One budget for all hedged commands: hedges stay about a tenth of hedgeable requests.
    private let budget = Mutex(HedgeBudget())
    /// Partitions whose first copies stopped answering, per topic.
    private let stalls = Mutex<[String: PartitionStalls]>([:])

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

    /// Whether a due hedge may go out: always when `aroundStall` (the first copy's partition is stalled and the hedge
    /// goes to partitions that are not: its only way to an answer), otherwise within the `HedgeBudget`; false means
    /// this request waits for its first copy alone.
    func mayHedge(aroundStall: Bool) -> Bool {
        aroundStall || budget.withLock { $0.spend() }
    }

    /// The first copy, sent to `partition` of `topic` at `sentAt`, is still unanswered at its hedge delay.
    func overdue(topic: String, partition: Int32, sentAt: ContinuousClock.Instant) {
        let now = ContinuousClock.now
        stalls.withLock { $0[topic, default: PartitionStalls()].overdue(partition, sentAt: sentAt, now: now) }
    }

    /// `partition` of `topic` answered a read whose first copy was sent at `sentAt`.
    func answered(topic: String, partition: Int32, sentAt: ContinuousClock.Instant) {
        stalls.withLock { $0[topic]?.answered(partition, sentAt: sentAt) }
    }

    /// Whether a read whose first copy landed on `partition` of `topic` is hedged at once (`PartitionStalls`): while
    /// the partition is stalled, except one probe a second.
    func hedgesAtOnce(topic: String, partition: Int32) -> Bool {
        let now = ContinuousClock.now
        return stalls.withLock { $0[topic]?.hedgesAtOnce(partition, now: now) ?? false }
    }

    /// Whether `partition` of `topic` is stalled (`PartitionStalls`): no hedge goes there.
    func isStalled(topic: String, partition: Int32) -> Bool {
        let now = ContinuousClock.now
        return stalls.withLock { $0[topic]?.isStalled(partition, now: now) ?? false }
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
    /// Stalled partitions are left out unless every candidate is stalled (a whole service slow): `answering` says
    /// whether the partitions returned are the ones not stalled.
    func partitions(of topic: String, awayFrom first: Int32?) -> (partitions: [Int32], answering: Bool) {
        let count = partitionCounts[topic, default: 1]
        guard count > 1 else { return ([], false) }
        let candidates: [Int32]
        if let first, first >= 0, first < count {
            let next = (first + 1) % count
            let opposite = (first + count / 2) % count
            candidates = opposite == next || opposite == first ? [next] : [next, opposite]
        } else {
            candidates = Array(0..<count)
        }
        let now = ContinuousClock.now
        let answering = stalls.withLock { all in
            candidates.filter { !(all[topic]?.isStalled($0, now: now) ?? false) }
        }
        return answering.isEmpty ? (candidates, false) : (answering, true)
    }
}

/// The first copy of a hedgeable request: when it was sent, and the partition it landed on (from its delivery report,
/// -1 until known).
final class FirstCopy: Sendable {
    let sentAt: ContinuousClock.Instant
    private let value = Atomic<Int32>(-1)

    init(sentAt: ContinuousClock.Instant) { self.sentAt = sentAt }

    func landed(on partition: Int32) { value.store(partition, ordering: .relaxed) }

    var partition: Int32? {
        let partition = value.load(ordering: .relaxed)
        return partition >= 0 ? partition : nil
    }
}
