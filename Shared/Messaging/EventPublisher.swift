import Contracts
import Kafka
import Runtime

/// Publishes serialized domain events (CloudEvents JSON bytes) and push requests and awaits their delivery.
/// Never throws: failures are logged and counted (`messaging_publish_failures_total{topic}`).
public final class EventPublisher: Sendable {
    private let producer: KafkaProducer
    private let logger: Logger

    public init(producer: KafkaProducer, logger: Logger) {
        self.producer = producer
        self.logger = logger
        // The series alerts watch exist from the start, at zero.
        for topic in [Topics.events, Topics.pushRequests] { _ = MessagingMetrics.publishFailures(topic: topic) }
    }

    /// Returns whether the broker acknowledged the message.
    @discardableResult
    public func publish(topic: String, key: String, value: [UInt8]) async -> Bool {
        await publish(topic: topic, key: key, value: value, headers: [])
    }

    /// Like `publish(topic:key:value:)` with record headers (e.g. `mv-command` for a consumer using `CommandRunner`).
    @discardableResult
    public func publish(topic: String, key: String, value: [UInt8], headers: [KafkaHeader]) async -> Bool {
        do {
            _ = try await producer.send(topic: topic, key: Array(key.utf8), value: value, headers: headers)
            return true
        } catch {
            MessagingMetrics.publishFailures(topic: topic).increment()
            logger.error("event publish failed", ["kafka.topic": .string(topic), "error": .string("\(error)")])
            return false
        }
    }
}
