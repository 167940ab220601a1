import Runtime
import Synchronization

/// The module's metrics, created once per label value (bounded: per-instance reply topics share one label).
enum KafkaMetrics {
    static let produceErrors = MetricsRegistry.shared.counter(
        "kafka_produce_errors_total", help: "Messages that could not be enqueued or were not delivered")
    static let brokersDown = MetricsRegistry.shared.gauge(
        "kafka_producer_brokers_down", help: "1 while a producer cannot reach any broker and rejects sends")
    static let commitErrors = MetricsRegistry.shared.counter(
        "kafka_commit_errors_total", help: "Failed offset commits (retried with the next commit)")

    private static let produced = TopicCounters(name: "kafka_messages_produced_total", help: "Delivered messages")
    private static let consumed = TopicCounters(name: "kafka_messages_consumed_total", help: "Consumed messages")

    static func producedCounter(_ topic: String) -> Counter { produced.counter(topic) }
    static func consumedCounter(_ topic: String) -> Counter { consumed.counter(topic) }

    static func handlerInFlight(group: String) -> Gauge {
        MetricsRegistry.shared.gauge(
            "kafka_handler_in_flight", help: "Consumed messages whose handler has not finished",
            labels: ["group": label(group)])
    }

    /// Topic or group label, per-instance names collapsed into their registered family (`KafkaTopicLabels`).
    static func label(_ name: String) -> String { KafkaTopicLabels.label(name) }
}

/// Per-topic counters cached by topic name, so the hot path skips label rendering.
private final class TopicCounters: Sendable {
    let name: String
    let help: String
    private let cache = Mutex<[String: Counter]>([:])

    init(name: String, help: String) {
        self.name = name
        self.help = help
    }

    func counter(_ topic: String) -> Counter {
        if let hit = cache.withLock({ $0[topic] }) { return hit }
        let counter = MetricsRegistry.shared.counter(name, help: help, labels: ["topic": KafkaMetrics.label(topic)])
        cache.withLock { $0[topic] = counter }
        return counter
    }
}
