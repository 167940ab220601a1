import CRdKafka
import Dispatch
import Foundation
import Runtime

/// Time-based retention for the mock cluster's partition logs, which otherwise only stop growing at librdkafka's
/// per-partition caps (100,000 message sets or 5 MB). The mock finds a fetch's message set by walking the log
/// from the oldest one, so a long log makes every fetch that returns data slow (docs/BENCHMARKS.md, "The dev
/// broker ages"); with retention the broker's cost no longer depends on how much has flowed through it.
///
/// Every `interval` a dedicated thread lists the topics (Metadata), reads each partition's offsets (ListOffsets)
/// through a client of its own, and deletes the records below the end offset it saw `retention` ago. A consumer
/// that lags by more than `retention` (a service stopped that long) resumes at the oldest record kept, as with a
/// real broker's `retention.ms`. Needs librdkafka ≥ 2.16 (`MockKafkaCluster.canDeleteRecords`).
public final class MockLogRetention: Sendable {
    private let cluster: MockKafkaCluster
    private let client: MetadataClient
    private let retention: Duration
    private let interval: Duration
    private let logger: Logger
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the sweeper; nil when the loaded librdkafka cannot delete records or no client can be made.
    public static func start(
        cluster: MockKafkaCluster, retention: Duration, interval: Duration, logger: Logger
    ) -> MockLogRetention? {
        guard MockKafkaCluster.canDeleteRecords, let client = MetadataClient(bootstrap: cluster.bootstrapServers)
        else { return nil }
        let sweeper = MockLogRetention(
            cluster: cluster, client: client, retention: retention, interval: interval, logger: logger)
        let thread = Thread { sweeper.run() }
        thread.name = "mock-retention"
        thread.start()
        return sweeper
    }

    private init(
        cluster: MockKafkaCluster, client: MetadataClient, retention: Duration, interval: Duration, logger: Logger
    ) {
        self.cluster = cluster
        self.client = client
        self.retention = retention
        self.interval = interval
        self.logger = logger
    }

    /// Stops the sweeper and waits for its thread (at most one sweep).
    public func stop() {
        wake.signal()
        finished.wait()
    }

    /// The thread's loop: one sweep per `interval` until `stop()`.
    private func run() {
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        var history: [Partition: [Sample]] = [:]
        while wake.wait(timeout: .now() + seconds) == .timedOut {
            sweep(&history, now: .now)
        }
        client.destroy()
        finished.signal()
    }

    /// Records each partition's end offset and deletes below the newest end offset at least `retention` old.
    private func sweep(_ history: inout [Partition: [Sample]], now: ContinuousClock.Instant) {
        guard let partitions = client.partitions() else { return }
        let seen = Set(partitions)
        for partition in partitions {
            guard let (low, high) = client.offsets(partition) else { continue }
            var samples = history[partition, default: []]
            // A log that shrank is a topic deleted and created again: its old end offsets mean nothing.
            if let last = samples.last, high < last.end { samples.removeAll() }
            samples.append(Sample(at: now, end: high))
            // Keep the newest sample older than `retention` (the deletion point) and every younger one.
            if let expired = samples.lastIndex(where: { now - $0.at >= retention }) {
                samples.removeFirst(expired)
                let below = samples[0].end
                if below > low {
                    let error = cluster.deleteRecords(topic: partition.topic, partition: partition.id, below: below)
                    if error != 0 {
                        logger.debug(
                            "mock retention could not delete records",
                            [
                                LogKeys.kafkaTopic: .string(partition.topic),
                                LogKeys.kafkaPartition: .int(Int(partition.id)),
                                LogKeys.kafkaOffset: .int(Int(below)), LogKeys.error: .int(Int(error)),
                            ])
                    }
                }
            }
            history[partition] = samples
        }
        history = history.filter { seen.contains($0.key) }
    }
}

/// One partition of one topic.
private struct Partition: Hashable {
    let topic: String
    let id: Int32
}

/// A partition's end offset at one sweep.
private struct Sample {
    let at: ContinuousClock.Instant
    let end: Int64
}

/// A plain librdkafka client of the mock cluster, for Metadata and ListOffsets. Its calls block: the sweeper's
/// thread alone uses it.
private final class MetadataClient: @unchecked Sendable {
    private let handle: OpaquePointer
    private static let timeoutMs: Int32 = 2000

    init?(bootstrap: String) {
        guard let conf = rd_kafka_conf_new() else { return nil }
        var errorText = [CChar](repeating: 0, count: 512)
        for (name, value) in [("bootstrap.servers", bootstrap), ("log_level", "3"), ("socket.nagle.disable", "true")]
        where rd_kafka_conf_set(conf, name, value, &errorText, errorText.count) != RD_KAFKA_CONF_OK {
            rd_kafka_conf_destroy(conf)
            return nil
        }
        guard let handle = rd_kafka_new(RD_KAFKA_PRODUCER, conf, &errorText, errorText.count) else {
            rd_kafka_conf_destroy(conf)
            return nil
        }
        self.handle = handle
    }

    /// Every partition of every topic the cluster knows; nil when the metadata request failed.
    func partitions() -> [Partition]? {
        var metadata: UnsafePointer<rd_kafka_metadata>?
        guard rd_kafka_metadata(handle, 1, nil, &metadata, Self.timeoutMs) == RD_KAFKA_RESP_ERR_NO_ERROR,
            let metadata
        else { return nil }
        defer { rd_kafka_metadata_destroy(metadata) }
        var result: [Partition] = []
        let topics = UnsafeBufferPointer(start: metadata.pointee.topics, count: Int(metadata.pointee.topic_cnt))
        for topic in topics where topic.err == RD_KAFKA_RESP_ERR_NO_ERROR {
            guard let name = topic.topic else { continue }
            let topicName = String(cString: name)
            for partition in UnsafeBufferPointer(start: topic.partitions, count: Int(topic.partition_cnt)) {
                result.append(Partition(topic: topicName, id: partition.id))
            }
        }
        return result
    }

    /// The partition's start and end offsets; nil when the request failed.
    func offsets(_ partition: Partition) -> (low: Int64, high: Int64)? {
        var low: Int64 = 0
        var high: Int64 = 0
        let error = rd_kafka_query_watermark_offsets(
            handle, partition.topic, partition.id, &low, &high, Self.timeoutMs)
        return error == RD_KAFKA_RESP_ERR_NO_ERROR ? (low, high) : nil
    }

    /// Destroys the client (joins its threads).
    func destroy() { rd_kafka_destroy(handle) }
}
