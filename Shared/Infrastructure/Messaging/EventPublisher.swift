import Contracts
import Kafka
import Runtime

/// Publishes serialized domain events (CloudEvents JSON bytes), push requests and commands, and awaits their
/// delivery. Failures are counted (`messaging_publish_failures_total{topic}`) and logged (rate-limited).
public final class EventPublisher: Sendable {
    private let producer: KafkaProducer
    private let logger: Logger

    public init(producer: KafkaProducer, logger: Logger) {
        self.producer = producer
        self.logger = logger
        // The series alerts watch exist from the start, at zero.
        for topic in [Topics.events, Topics.pushRequests] { _ = MessagingMetrics.publishFailures(topic: topic) }
    }

    /// One attempt; returns whether the broker acknowledged the message.
    @discardableResult
    public func publish(topic: String, key: String, value: [UInt8]) async -> Bool {
        await publish(topic: topic, key: key, value: value, headers: [])
    }

    /// Like `publish(topic:key:value:)` with record headers (e.g. `mv-command` for a consumer using `CommandRunner`).
    @discardableResult
    public func publish(topic: String, key: String, value: [UInt8], headers: [KafkaHeader]) async -> Bool {
        (try? await send(topic: topic, key: key, value: value, headers: headers)) != nil
    }

    /// Publishes until the broker acknowledges, retrying with back-off; gives up with `PublishError` only at
    /// `deadline` (nil: never; cancellation still ends it). For work that must not be lost.
    public func deliver(
        topic: String, key: String, value: [UInt8], headers: [KafkaHeader] = [],
        until deadline: ContinuousClock.Instant?
    ) async throws {
        try await Retry.run(until: deadline, backoff: Backoff(initial: .milliseconds(100), maximum: .seconds(5))) {
            try await send(topic: topic, key: key, value: value, headers: headers)
        }
    }

    /// `deliver` of a command without a budget (its handler gets `CommandRunner.defaultBudget` from when it reads
    /// it) for a `CommandRunner` consumer: the `mv-command` header names it.
    public func deliverCommand(
        topic: String, key: String, name: String, body: [UInt8], until deadline: ContinuousClock.Instant?
    ) async throws {
        try await deliver(
            topic: topic, key: key, value: body, headers: [KafkaHeader(MessageHeaders.command, name)], until: deadline)
    }

    private func send(topic: String, key: String, value: [UInt8], headers: [KafkaHeader]) async throws {
        do {
            _ = try await producer.send(topic: topic, key: Array(key.utf8), value: value, headers: headers)
        } catch let cancelled as CancellationError {
            // The caller stopped waiting (shutdown, a request gone); not a failure of the bus.
            throw cancelled
        } catch {
            MessagingMetrics.publishFailures(topic: topic).increment()
            logger.error(
                "event publish failed", [LogKeys.kafkaTopic: .string(topic), LogKeys.error: .string("\(error)")])
            throw PublishError(topic: topic, reason: "\(error)")
        }
    }
}

/// A message the broker did not acknowledge (in time).
public struct PublishError: TransientFailure, CustomStringConvertible {
    public let topic: String
    public let reason: String
    public init(topic: String, reason: String) {
        self.topic = topic
        self.reason = reason
    }
    public var isRetriable: Bool { true }
    public var dependency: String { "event bus" }
    public var description: String { "not published to \(topic): \(reason)" }
}
