import Contracts
import Kafka
import Messaging
import Runtime
import TestSupport
import Testing

/// One "replica" of a command topic: a reader of one partition that answers every command after `delay`, or never.
struct PartitionReplica {
    let reader: KafkaPartitionReader

    static func start(
        _ configuration: KafkaConfiguration, topic: String, partition: Int32, producer: KafkaProducer,
        delay: Duration?
    ) async throws -> PartitionReplica {
        let reader = try KafkaPartitionReader.make(
            configuration: configuration, topic: topic, partition: partition, logger: testLogger
        ) { message in
            guard let delay, let replyTo = message.header(MessageHeaders.replyTo),
                let correlationId = message.header(MessageHeaders.correlationId)
            else { return }
            let headers = [
                KafkaHeader(MessageHeaders.correlationId, correlationId), KafkaHeader(MessageHeaders.status, "200"),
            ]
            Task {
                try await Task.sleep(for: delay)
                _ = try await producer.send(
                    topic: replyTo, partition: 0, key: nil, value: Array("p\(partition)".utf8), headers: headers)
            }
        }
        try await reader.waitUntilReady(timeout: .seconds(15))
        return PartitionReplica(reader: reader)
    }
}

@Suite("Hedged reads against the test broker")
struct HedgingIntegrationTests {
    let policy = HedgeDelay.Policy(
        floor: .milliseconds(50), cap: .milliseconds(300), initial: .milliseconds(150), window: 50, minimumSamples: 5)

    /// A key whose commands land on partition 0 of a two-partition topic (the partitioner hashes the key alone).
    func keyForPartitionZero(_ configuration: KafkaConfiguration, producer: KafkaProducer) async throws -> String {
        let probe = TestEnvironment.uniqueName("kt-hedge-probe")
        try await makeTopics(configuration, [(probe, 2)])
        for index in 0..<64 {
            let key = "brand-\(index)"
            let delivery = try await producer.send(topic: probe, key: Array(key.utf8), value: [], headers: [])
            if delivery.partition == 0 { return key }
        }
        throw Failure("no key of 64 landed on partition 0")
    }

    func setUp(slowFirst: Duration?) async throws -> (RequestReplyClient, String, String, [PartitionReplica]) {
        let configuration = try testConfiguration()
        let topic = TestEnvironment.uniqueName("kt-hedge")
        try await makeTopics(configuration, [(topic, 2)])
        let producer = try KafkaProducer.make(configuration: configuration, logger: testLogger)
        let key = try await keyForPartitionZero(configuration, producer: producer)
        let replicas = [
            try await PartitionReplica.start(
                configuration, topic: topic, partition: 0, producer: producer, delay: slowFirst),
            try await PartitionReplica.start(
                configuration, topic: topic, partition: 1, producer: producer, delay: .zero),
        ]
        let client = try await RequestReplyClient.make(
            configuration: configuration, instanceId: TestEnvironment.uniqueName("gw-hedge"), producer: producer,
            maxInFlight: 16,
            hedging: HedgeSettings(enabled: true, policy: policy), logger: testLogger)
        _ = Running(client)
        return (client, topic, key, replicas)
    }

    func command(_ key: String, read: Bool) -> OutgoingCommand {
        OutgoingCommand(
            service: .identify, name: "test.read.v1", key: key, body: Array("{}".utf8), requestId: "hedge-test",
            isIdempotentRead: read)
    }

    @Test func aHedgedReadAnswersWhenItsFirstPartitionIsSilent() async throws {
        let (client, topic, key, replicas) = try await setUp(slowFirst: nil)
        for _ in 0..<5 {
            let started = ContinuousClock.now
            let reply = try await client.request(command(key, read: true), topic: topic, budget: .seconds(5))
            let took = ContinuousClock.now - started
            print("hedged read with a silent first partition answered in \(took)")
            #expect(reply.status == 200)
            #expect(reply.body == Array("p1".utf8))
            #expect(took < .seconds(1))
        }
        // A command with side effects is never hedged: with its partition silent it waits out its budget.
        await #expect(throws: RequestError.self) {
            _ = try await client.request(command(key, read: false), topic: topic, budget: .milliseconds(800))
        }
        await client.shutdown()
        for replica in replicas { replica.reader.close() }
    }

    @Test func theSlowerCopyIsDroppedAndCounted() async throws {
        let (client, topic, key, replicas) = try await setUp(slowFirst: .milliseconds(600))
        // A first round trip warms the replicas' first sends to the reply topic (its metadata); every copy answers,
        // so its slower ones are losers too (how many depends on whether its partition was known at hedge time).
        _ = try await client.request(command(key, read: true), topic: topic, budget: .seconds(5))
        #expect(await eventually(timeout: .seconds(5)) { client.droppedReplies.hedgeLosers >= 1 })
        try await Task.sleep(for: .seconds(1))
        let before = client.droppedReplies.hedgeLosers
        let reply = try await client.request(command(key, read: true), topic: topic, budget: .seconds(5))
        #expect(reply.body == Array("p1".utf8))
        #expect(await eventually(timeout: .seconds(5)) { client.droppedReplies.hedgeLosers == before + 1 })
        #expect(client.droppedReplies.duplicate == 0)
        await client.shutdown()
        for replica in replicas { replica.reader.close() }
    }
}
