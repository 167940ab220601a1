import Contracts
import Foundation
import Kafka
import Runtime

/// Feeds `CapturesStore` from `mapvest.find.recorded` events on `mapvest.events.v1`, in Nearby's own consumer group
/// (`mapvest.nearby.read-model`), so the read model keeps up whatever else reads the events. Other event types
/// are skipped; a write that keeps failing is retried with back-off for about 30 s, then dropped and counted.
public final class FindsRecordedConsumer: Service {
    public static let groupId = "mapvest.nearby.read-model"

    public let name: String
    private let consumer: KafkaGroupConsumer

    public init(
        configuration: KafkaConfiguration, store: CapturesStore, logger: Logger, topic: String = Topics.events,
        groupId: String = FindsRecordedConsumer.groupId, maxInFlight: Int = 16
    ) throws {
        name = "finds-recorded.\(groupId)"
        consumer = try KafkaGroupConsumer.make(configuration: configuration, groupId: groupId, topics: [topic], logger: logger)
        let dropped = MetricsRegistry.shared.counter(
            "nearby_read_model_dropped_total", help: "find.recorded events the read model could not store")
        let recorded = MetricsRegistry.shared.counter(
            "nearby_read_model_recorded_total", help: "find.recorded events applied to the read model")
        consumer.setHandler(maxInFlight: maxInFlight) { message in
            guard let event = Self.decode(message.value) else { return }
            var delay = Duration.milliseconds(100)
            for attempt in 1...8 {
                do {
                    try await store.record(event)
                    recorded.increment()
                    return
                } catch {
                    if attempt == 8 {
                        dropped.increment()
                        logger.error(
                            "read model write failed; event dropped",
                            ["find.id": .string(event.findId), "error": "\(error)"])
                        return
                    }
                    try? await Task.sleep(for: delay)
                    delay = min(delay * 2, .seconds(8))
                }
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
