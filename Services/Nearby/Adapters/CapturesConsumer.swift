import Contracts
import Kafka
import Messaging
import Runtime

extension FindsRecordedConsumer {
    /// Nearby's read-model consumer group.
    public static let nearbyGroupId = "mapvest.nearby.read-model"

    /// Nearby's seen/captured read model fed from `mapvest.find.recorded` (counters `nearby_read_model_*`).
    public convenience init(
        configuration: KafkaConfiguration, store: CapturesStore, logger: Logger, topic: String = Topics.events,
        groupId: String = FindsRecordedConsumer.nearbyGroupId, maxInFlight: Int = 16
    ) throws {
        try self.init(
            configuration: configuration, groupId: groupId, metricsPrefix: "nearby_read_model", logger: logger,
            topic: topic, maxInFlight: maxInFlight
        ) { _ = try await store.record($0) }
    }
}
