import CRdKafka
import Foundation
import Runtime
import Synchronization

/// A consumer-group member that hands messages to a handler concurrently and commits only finished work.
///
/// - A dedicated thread polls (`rd_kafka_consumer_poll`, at most 100 ms) and is the only caller of the consumer's
///   C API apart from `committedOffset`; handlers run as tasks on the cooperative pool, up to `maxInFlight` at once.
/// - Offsets are committed manually (`enable.auto.commit=false`, `enable.auto.offset.store=false`,
///   `auto.offset.reset=earliest`), per partition only up to the lowest unfinished message (`OffsetTracker`),
///   asynchronously, at most every 100 ms.
/// - Handlers never exceed the cap; messages received meanwhile wait in a local buffer of up to `maxInFlight`.
///   When the buffer is full the assignment is paused (`rd_kafka_pause_partitions`) and the loop keeps polling,
///   so `max.poll.interval.ms` is never exceeded; once the buffer is half drained it is resumed.
/// - With `KafkaConfiguration.idleFetch` (the development profile), an idle assignment is paused between short
///   fetch probes (`IdleFetchPacer`, spaced by the consumer's `FetchUrgency`) and resumed by the first message found.
/// - On revocation (eager or cooperative, per `rd_kafka_rebalance_protocol`) the callback waits for the revoked
///   partitions' handlers (bounded by `revokeTimeout`), commits synchronously, then unassigns. Lost partitions are
///   not committed.
/// - `shutdown()` stops intake, drains handlers (bounded by `drainTimeout`), commits, and closes the consumer,
///   which leaves the group.
/// - Every decision above is made by `ConsumerLifecycle` (a pure state machine, unit-tested without a broker);
///   this type does the C calls and runs the handlers.
public final class KafkaGroupConsumer: Service {
    public let name: String
    private let core: ConsumerCore

    private init(name: String, core: ConsumerCore) {
        self.name = name
        self.core = core
    }

    /// Creates the consumer; it joins the group when `run()` starts.
    /// - Parameters:
    ///   - drainTimeout: how long `shutdown()` waits for running handlers.
    ///   - revokeTimeout: how long a revocation waits for the revoked partitions' handlers; keep it well below
    ///     `max.poll.interval.ms` (the default is capped at half of it).
    ///   - urgency: whether the topics are on a request's path (how often an idle assignment is probed).
    public static func make(
        configuration: KafkaConfiguration, groupId: String, topics: [String], urgency: FetchUrgency = .prompt,
        logger: Logger, drainTimeout: Duration = .seconds(20), revokeTimeout: Duration = .seconds(5)
    ) throws -> KafkaGroupConsumer {
        let logger = logger.with([LogKeys.kafkaGroup: .string(groupId)])
        let context = CallbackContext(logger: logger)
        let handle = try RDKafkaHandle.make(
            kind: RD_KAFKA_CONSUMER,
            properties: configuration.librdkafkaProperties(for: .groupConsumer(groupId: groupId)),
            context: context
        ) { conf in
            rd_kafka_conf_set_rebalance_cb(conf, rebalanceCallback)
            rd_kafka_conf_set_offset_commit_cb(conf, offsetCommitCallback)
        }
        // Route the main queue (errors, logs, commit results) to the consumer queue served by the poll thread.
        rd_kafka_poll_set_consumer(handle.raw)
        guard let queue = RDKafkaQueue(consumerQueueOf: handle) else {
            throw KafkaError(code: .state, detail: "no consumer queue", isRetriable: false)
        }
        let revoke = min(revokeTimeout, configuration.maxPollInterval(groupId: groupId) / 2)
        let core = ConsumerCore(
            handle: handle, queue: queue, groupId: groupId, topics: topics, logger: logger,
            drainTimeout: drainTimeout, revokeTimeout: revoke, idleFetch: configuration.idleFetch(for: urgency))
        return KafkaGroupConsumer(name: "kafka-consumer.\(groupId)", core: core)
    }

    deinit {
        core.requestStop()
    }

    /// Must be called before `run()`: the handler is called concurrently, up to `maxInFlight` messages at once.
    /// The message's offset is committable once the handler returns.
    public func setHandler(maxInFlight: Int, _ handler: @escaping @Sendable (KafkaMessage) async -> Void) {
        let group = core.groupId
        core.setHandler(maxInFlight: max(1, maxInFlight)) { message in
            await KafkaTracing.consume(message, group: group) { await handler(message) }
        }
    }

    /// Joins the group and consumes until `shutdown()`. Throws when the handler is missing or the subscription or
    /// the client fails fatally.
    public func run() async throws {
        try core.start()
        await core.stopped.wait()
        if let failure = core.failure { throw failure }
    }

    /// Stops intake, drains running handlers (bounded), commits, leaves the group.
    public func shutdown() async {
        core.requestStop()
        await core.stopped.wait()
    }

    /// The group's committed offset for a partition (nil when none), read from the broker.
    public func committedOffset(topic: String, partition: Int32, timeout: Duration = .seconds(5)) async throws -> Int64?
    {
        let handle = core.handle
        return try await onDedicatedThread("kafka-committed") { () throws(KafkaError) -> Int64? in
            let list = RDKafkaTopicPartitionList([(TopicPartition(topic: topic, partition: partition), nil)])
            let result = rd_kafka_committed(handle.raw, list.raw, timeout.clampedMilliseconds)
            guard result == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(result) }
            guard let entry = RDKafkaTopicPartitionList.entries(of: list.raw).first else { return nil }
            guard entry.err == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(entry.err) }
            return entry.offset >= 0 ? entry.offset : nil
        }
    }

    /// Handlers running plus received messages waiting for a slot.
    public var inFlight: Int { core.inFlight }
}

/// Owns one `rd_kafka_queue_t` (destroyed before its client: it holds the client's handle).
final class RDKafkaQueue: @unchecked Sendable {
    let raw: OpaquePointer
    private let owner: RDKafkaHandle

    init?(consumerQueueOf handle: RDKafkaHandle) {
        guard let queue = rd_kafka_queue_get_consumer(handle.raw) else { return nil }
        raw = queue
        owner = handle
    }

    /// Wakes a thread blocked polling this queue.
    func wake() { rd_kafka_queue_yield(raw) }

    deinit { rd_kafka_queue_destroy(raw) }
}
