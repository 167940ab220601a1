import CRdKafka
import Runtime
import Synchronization

/// `kafka_consumer_lag{group,topic}`: messages in this member's assigned partitions that it has not fetched yet
/// (cached high watermark − fetch position, summed per topic). Sum over replicas for the group's lag. Sampled on
/// the poll thread at most once a second from librdkafka's cached values, so it never blocks on the broker.
final class ConsumerLag: Sendable {
    static let interval: Duration = .seconds(1)

    private let gauges: [String: Gauge]
    private let nextSample = Mutex(ContinuousClock.now)

    init(group: String, topics: [String]) {
        var gauges: [String: Gauge] = [:]
        for topic in topics {
            gauges[topic] = MetricsRegistry.shared.gauge(
                "kafka_consumer_lag", help: "Messages in assigned partitions not yet fetched by this member",
                labels: ["group": KafkaMetrics.label(group), "topic": KafkaMetrics.label(topic)])
        }
        self.gauges = gauges
    }

    /// Updates the gauges when a second has passed since the last sample. Poll thread only.
    func sampleIfDue(_ rk: OpaquePointer) {
        let now = ContinuousClock.now
        let due = nextSample.withLock { next -> Bool in
            guard now >= next else { return false }
            next = now + Self.interval
            return true
        }
        guard due else { return }
        var assignment: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        guard rd_kafka_assignment(rk, &assignment) == RD_KAFKA_RESP_ERR_NO_ERROR, let assignment else { return }
        defer { rd_kafka_topic_partition_list_destroy(assignment) }
        var lag: [String: Int64] = [:]
        if assignment.pointee.cnt > 0, rd_kafka_position(rk, assignment) == RD_KAFKA_RESP_ERR_NO_ERROR {
            for entry in RDKafkaTopicPartitionList.entries(of: assignment) {
                var low: Int64 = 0
                var high: Int64 = 0
                guard
                    rd_kafka_get_watermark_offsets(rk, entry.tp.topic, entry.tp.partition, &low, &high)
                        == RD_KAFKA_RESP_ERR_NO_ERROR, high >= 0
                else { continue }
                // Before the first fetch the position is unset: count from the low watermark.
                let position = entry.offset >= 0 ? entry.offset : low
                lag[entry.tp.topic, default: 0] += max(0, high - position)
            }
        }
        for (topic, gauge) in gauges { gauge.set(lag[topic] ?? 0) }
    }
}
