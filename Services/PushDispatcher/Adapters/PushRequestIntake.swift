import Contracts
import Kafka
import PushCore
import Runtime

/// Consumes notification requests (`mapvest.push.requests.v1`, group `mapvest.push.dispatch`) and hands each to the
/// dispatcher; the offset becomes committable once the request is delivered (at least once, dedupe makes repeats
/// harmless).
///
/// Why a plain group consumer and not `CommandRunner`: any service publishes here with `EventPublisher.publish`, which
/// sets no `mv-command` header, and `CommandRunner` dead-letters header-less messages. So a missing header is accepted;
/// a header naming anything but `push.request.v1`, or a body that is not a `PushRequest`, goes to the dead-letter
/// topic with the reason in `mv-dlq-*` headers (never delivered, never retried).
public final class PushRequestIntake: Service {
    public let name: String
    private let consumer: KafkaGroupConsumer

    public init(
        configuration: KafkaConfiguration, topic: String, groupId: String, producer: KafkaProducer,
        deadLetterTopic: String = Topics.deadLetter, maxInFlight: Int, logger: Logger,
        deliver: @escaping @Sendable (PushRequest) async -> Void
    ) throws {
        let logger = logger.with([LogKeys.kafkaTopic: .string(topic)])
        name = "push-intake.\(topic)"
        consumer = try KafkaGroupConsumer.make(
            configuration: configuration, groupId: groupId, topics: [topic], urgency: .background, logger: logger)
        consumer.setHandler(maxInFlight: maxInFlight) { message in
            switch Self.decode(message) {
            case .success(let request):
                await deliver(request)
            case .failure(let reason):
                Metrics.requestsRejected(reason.rawValue).increment()
                var headers = message.headers.filter { !$0.key.hasPrefix("mv-dlq-") }
                headers.append(KafkaHeader(MessageHeaders.dlqError, reason.rawValue))
                headers.append(KafkaHeader(MessageHeaders.dlqTopic, message.topic))
                headers.append(KafkaHeader(MessageHeaders.dlqPartition, String(message.partition)))
                headers.append(KafkaHeader(MessageHeaders.dlqOffset, String(message.offset)))
                let fields: [String: LogValue] = [
                    LogKeys.kafkaPartition: .int(Int(message.partition)),
                    LogKeys.kafkaOffset: .int(Int(message.offset)),
                    LogKeys.reason: .string(reason.rawValue),
                ]
                do {
                    _ = try await producer.send(
                        topic: deadLetterTopic, key: message.key, value: message.value, headers: headers)
                    logger.warning("push request dead-lettered", fields)
                } catch {
                    logger.error("push request dropped: dead letter not delivered", fields)
                }
            }
        }
    }

    public func run() async throws { try await consumer.run() }

    /// Stops intake, lets running deliveries finish (bounded), commits, leaves the group.
    public func shutdown() async { await consumer.shutdown() }

    /// The request in `message` (`PushRequest.decode(command:body:)`).
    package static func decode(_ message: KafkaMessage) -> Result<PushRequest, PushRequestRejection> {
        PushRequest.decode(command: message.header(MessageHeaders.command), body: message.value)
    }
}
