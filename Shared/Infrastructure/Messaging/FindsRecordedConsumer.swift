import Contracts
import Foundation
import Kafka
import Runtime

/// Feeds a read model (Nearby's captures, Briefs' finds) from `mapvest.find.recorded` events on
/// `mapvest.events.v1`, in the reader's own consumer group (Nearby's is `mapvest.nearby.read-model`), so each read
/// model keeps up whatever else reads the events. Other event types are skipped. A write that fails is retried with back-off (100 ms doubling to 5 s) for as long as it takes: the
/// event's offset is not committed meanwhile, so the consumer never moves past an event it could not apply; at its
/// in-flight cap it stops fetching, and it resumes from the held event when the store returns (or, after a restart,
/// from the last committed offset). Writes are idempotent by find id.
public final class FindsRecordedConsumer: Service {
    public let name: String
    private let consumer: KafkaGroupConsumer

    /// A consumer in `groupId` that hands each event to `apply` (idempotent by find id), under the same rules; its
    /// counters are `<metricsPrefix>_retries_total` and `<metricsPrefix>_recorded_total`.
    public init(
        configuration: KafkaConfiguration, groupId: String, metricsPrefix: String, logger: Logger,
        topic: String = Topics.events, maxInFlight: Int = 16,
        apply: @escaping @Sendable (FindRecordedEvent) async throws -> Void
    ) throws {
        name = "finds-recorded.\(groupId)"
        consumer = try KafkaGroupConsumer.make(
            configuration: configuration, groupId: groupId, topics: [topic], urgency: .background, logger: logger)
        let retries = MetricsRegistry.shared.counter(
            "\(metricsPrefix)_retries_total",
            help: "failed find.recorded writes to the read model (retried; offset held)")
        let recorded = MetricsRegistry.shared.counter(
            "\(metricsPrefix)_recorded_total", help: "find.recorded events applied to the read model")
        consumer.setHandler(maxInFlight: maxInFlight) { message in
            guard let event = Self.decode(message.value) else { return }
            do {
                try await Retry.run(
                    until: nil, backoff: Backoff(initial: .milliseconds(100), maximum: .seconds(5)),
                    onFailure: { error, attempt in
                        retries.increment()
                        logger.warning(
                            "read model write failed; retrying, offset held",
                            [
                                LogKeys.findId: .string(event.findId), LogKeys.attempt: .int(attempt),
                                LogKeys.error: "\(error)",
                            ])
                    }
                ) { try await apply(event) }
                recorded.increment()
            } catch {
                // Only cancellation ends the loop; the offset stays uncommitted and the event is read again.
            }
        }
    }

    /// The event's data when it is a `mapvest.find.recorded` CloudEvent; nil for anything else.
    static func decode(_ value: [UInt8]) -> FindRecordedEvent? {
        struct Envelope: Decodable { let type: String? }
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(value)),
            envelope.type == FindRecordedEvent.type
        else { return nil }
        return (try? JSONDecoder().decode(CloudEvent<FindRecordedEvent>.self, from: Data(value)))?.data
    }

    public func run() async throws { try await consumer.run() }
    public func shutdown() async { await consumer.shutdown() }
}
