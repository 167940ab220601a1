import Kafka
import Runtime
import TestSupport
import Testing

@Suite("Idle probes against the test broker")
struct IdleProbeIntegrationTests {
    /// An idle group consumer's probes ask the leaders for the partitions' ends and fetch only when one moved: the
    /// messages produced after a silence, to the partition it read before and to one it never got a message from,
    /// are still consumed.
    @Test func messagesAfterASilenceAreConsumed() async throws {
        let configuration = try testConfiguration()
        try #require(configuration.idleFetch != nil, "the test broker's profile paces idle consumers")
        let topic = TestEnvironment.uniqueName("kt-idle-probe")
        try await makeTopics(configuration, [(topic, 2)])
        let producer = try KafkaProducer.make(configuration: configuration, logger: testLogger)
        let consumer = try KafkaGroupConsumer.make(
            configuration: configuration, groupId: TestEnvironment.uniqueName("kt-idle-group"), topics: [topic],
            logger: testLogger)
        let received = Collected<KafkaMessage>()
        consumer.setHandler(maxInFlight: 4) { received.append($0) }
        let running = Running(consumer)

        let first = try await producer.send(topic: topic, partition: 0, key: nil, value: "before".bytes, headers: [])
        #expect(await eventually(timeout: .seconds(20)) { received.count == 1 })
        // Past the 2 s of fetching and through probes with the longest gap.
        try await Task.sleep(for: .seconds(4))
        _ = try await producer.send(topic: topic, partition: 0, key: nil, value: "after-0".bytes, headers: [])
        _ = try await producer.send(topic: topic, partition: 1, key: nil, value: "after-1".bytes, headers: [])
        #expect(await eventually(timeout: .seconds(5)) { received.count == 3 })
        try await running.stop()

        #expect(received.all.first?.offset == first.offset)
        #expect(
            Set(received.all.map { String(decoding: $0.value, as: UTF8.self) }) == ["before", "after-0", "after-1"])
    }
}
