import Kafka
import Runtime
import TestSupport
import Testing

@Suite("kafka_consumer_lag against the test broker")
struct ConsumerLagTests {
    /// A member held at its in-flight cap reports the messages it has not fetched; once it catches up, zero.
    @Test func countsUnfetchedMessagesAndReturnsToZero() async throws {
        let configuration = try testConfiguration()
        let topic = TestEnvironment.uniqueName("kt-lag")
        let group = TestEnvironment.uniqueName("kt-group")
        try await makeTopics(configuration, [(topic, 1)])
        let producer = try KafkaProducer.make(configuration: configuration, logger: testLogger)
        for i in 0..<40 {
            _ = try await producer.send(topic: topic, partition: 0, key: nil, value: "\(i)".bytes, headers: [])
        }
        let consumer = try KafkaGroupConsumer.make(
            configuration: configuration, groupId: group, topics: [topic], logger: testLogger)
        let gate = Gate()
        let started = Collected<Int64>()
        consumer.setHandler(maxInFlight: 1) { message in
            started.append(message.offset)
            await gate.wait()
        }
        let series = "kafka_consumer_lag{group=\"\(group)\",topic=\"\(topic)\"} "
        @Sendable func lag() -> Int? {
            MetricsRegistry.shared.render().split(separator: "\n").first { $0.hasPrefix(series) }
                .flatMap { Int($0.dropFirst(series.count)) }
        }
        #expect(lag() == 0)  // registered at zero before the member joins
        let running = Running(consumer)
        // Paused at twice the cap, the member has fetched two messages of forty.
        #expect(await eventually { (lag() ?? 0) >= 30 })
        #expect(started.count == 1)
        gate.release()
        #expect(await eventually(timeout: .seconds(20)) { started.count == 40 && lag() == 0 })
        try await running.stop()
    }
}
