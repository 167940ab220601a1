import Contracts
import Kafka
import Messaging
import Runtime
import Synchronization
import TestSupport
import Testing

/// How long a `PartitionReplica` waits before answering (nil: it never answers); a test may change it midway.
final class ReplyDelay: Sendable {
    private let value: Mutex<Duration?>

    init(_ delay: Duration?) { value = Mutex(delay) }

    var current: Duration? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

/// One "replica" of a command topic: a reader of one partition that answers every command after its delay, or
/// never, with the headers a `CommandRunner` reply carries (`mv-partition` among them).
struct PartitionReplica {
    let reader: KafkaPartitionReader
    let delay: ReplyDelay

    static func start(
        _ configuration: KafkaConfiguration, topic: String, partition: Int32, producer: KafkaProducer,
        delay: Duration?
    ) async throws -> PartitionReplica {
        let delay = ReplyDelay(delay)
        let reader = try KafkaPartitionReader.make(
            configuration: configuration, topic: topic, partition: partition, logger: testLogger
        ) { message in
            guard let wait = delay.current, let replyTo = message.header(MessageHeaders.replyTo),
                let correlationId = message.header(MessageHeaders.correlationId)
            else { return }
            let headers = [
                KafkaHeader(MessageHeaders.correlationId, correlationId), KafkaHeader(MessageHeaders.status, "200"),
                KafkaHeader(MessageHeaders.partition, String(partition)),
            ]
            Task {
                try await Task.sleep(for: wait)
                _ = try await producer.send(
                    topic: replyTo, partition: 0, key: nil, value: Array("p\(partition)".utf8), headers: headers)
            }
        }
        try await reader.waitUntilReady(timeout: .seconds(15))
        return PartitionReplica(reader: reader, delay: delay)
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

    /// A stall ends with the first reply its partition sends (`mv-partition`) to a read sent since it began, not
    /// only when it lapses (`PartitionStalls.recheckAfter`).
    @Test func aReplyFromAStalledPartitionEndsItsStall() async throws {
        let (client, topic, key, replicas) = try await setUp(slowFirst: nil)
        // Warm-up: partition 0 silent, so the read is answered by the hedge to partition 1, and partition 0 stalls.
        let warm = try await client.request(command(key, read: true), topic: topic, budget: .seconds(5))
        #expect(warm.body == Array("p1".utf8))
        // Metadata warm, the second stall is the one measured: its hedge goes at its delay, then partition 0 stalls.
        try await Task.sleep(for: PartitionStalls.recheckAfter + .milliseconds(200))
        let stalling = try await client.request(command(key, read: true), topic: topic, budget: .seconds(5))
        #expect(stalling.body == Array("p1".utf8))
        // Partition 0 is served again, within the hedge delay (150 ms) but slower than a hedge sent at once;
        // partition 1 becomes slower than partition 0.
        replicas[0].delay.current = .milliseconds(60)
        replicas[1].delay.current = .milliseconds(250)
        // Still stalled: hedged at once, and partition 0's own reply wins (partition 1's copy is a loser)...
        let answered = try await client.request(command(key, read: true), topic: topic, budget: .seconds(5))
        #expect(answered.body == Array("p0".utf8))
        try await Task.sleep(for: .milliseconds(350))
        let losers = client.droppedReplies.hedgeLosers
        // ...and that reply ended the stall: the next read, well within a second of the stall, is not hedged (a
        // hedge would have gone at once and left partition 1's reply as another loser).
        let after = try await client.request(command(key, read: true), topic: topic, budget: .seconds(5))
        #expect(after.body == Array("p0".utf8))
        try await Task.sleep(for: .milliseconds(400))
        #expect(client.droppedReplies.hedgeLosers == losers)
        await client.shutdown()
        for replica in replicas { replica.reader.close() }
    }
}
