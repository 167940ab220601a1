import Runtime
import Synchronization

/// How the gateway hedges idempotent reads (`OutgoingCommand.isIdempotentRead`): when the first copy has not
/// answered within the command's `HedgeDelay`, it is sent again to other partitions of the command topic (owned, most
/// likely, by another replica) and the first reply wins.
public struct HedgeSettings: Sendable {
    /// Off: every command is sent once.
    public var enabled: Bool
    /// Partitions of the command topics (the second copy's partition is chosen among them).
    public var commandPartitions: Int32
    package var policy: HedgeDelay.Policy

    public init(enabled: Bool = true, commandPartitions: Int32 = 8) {
        self.init(enabled: enabled, commandPartitions: commandPartitions, policy: .standard)
    }

    package init(enabled: Bool, commandPartitions: Int32, policy: HedgeDelay.Policy) {
        self.enabled = enabled
        self.commandPartitions = max(1, commandPartitions)
        self.policy = policy
    }

    /// `GATEWAY_HEDGING` (`off` disables hedging; default on) and `KAFKA_COMMAND_PARTITIONS` (default 8, as for
    /// the standard topics).
    public static func fromEnvironment(_ environment: Environment) -> HedgeSettings {
        HedgeSettings(
            enabled: environment.get("GATEWAY_HEDGING")?.lowercased() != "off",
            commandPartitions: environment.get("KAFKA_COMMAND_PARTITIONS", default: Int32(8)))
    }
}

/// Per-command hedge delays under one lock, and the choice of the second copy's partition.
final class Hedger: Sendable {
    let settings: HedgeSettings
    private let delays = Mutex<[String: HedgeDelay]>([:])

    init(settings: HedgeSettings) {
        self.settings = settings
    }

    /// How long a request of `command` waits before its second copy; nil when hedging is off or there is no other
    /// partition to send it to.
    func delay(for command: String) -> Duration? {
        guard settings.enabled, settings.commandPartitions > 1 else { return nil }
        return delays.withLock { $0[command]?.delay } ?? settings.policy.initial
    }

    /// Records how long a request of `command` waited for its reply.
    func observe(_ command: String, _ latency: Duration) {
        guard settings.enabled else { return }
        delays.withLock { all in
            all[command, default: HedgeDelay(policy: settings.policy)].observe(latency)
        }
    }

    /// The hedge's partitions: the next one and the one half the topic away from the first copy's, so that the
    /// hedge reaches another replica whether the group spread the partitions round-robin (neighbours differ) or in
    /// ranges (halves differ); any other partition when the first's is not yet known.
    func partitions(awayFrom first: Int32?) -> [Int32] {
        let count = settings.commandPartitions
        guard let first, first >= 0, first < count else {
            return [Int32.random(in: 0..<count)]
        }
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
