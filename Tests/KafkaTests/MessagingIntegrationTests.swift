import Contracts
import Kafka
import Messaging
import Runtime
import Synchronization
import TestSupport
import Testing

struct Boom: Error {}

/// A command topic served by a `CommandRunner`, with its own dead-letter topic, and a producer.
struct CommandStack {
    let configuration: KafkaConfiguration
    let commandTopic: String
    let deadLetterTopic: String
    let producer: KafkaProducer
    let runner: Running<CommandRunner>
    let handled: Collected<String>

    /// Commands: `echo` (body back, with a header), `slow` (sleeps the ms in its body, then echoes),
    /// `bad` (throws `CommandDecodingError`), `boom` (throws another error).
    static func start() async throws -> CommandStack {
        let configuration = try testConfiguration()
        let commandTopic = TestEnvironment.uniqueName("kt-commands")
        let deadLetterTopic = TestEnvironment.uniqueName("kt-dlq")
        try await makeTopics(configuration, [(commandTopic, 4), (deadLetterTopic, 1)])
        let producer = try KafkaProducer.make(configuration: configuration, logger: testLogger)
        let handled = Collected<String>()
        let runner = try CommandRunner(
            configuration: configuration, topic: commandTopic, groupId: TestEnvironment.uniqueName("kt-runner"),
            deadLetterTopic: deadLetterTopic, producer: producer, maxInFlight: 16, logger: testLogger
        ) { command in
            handled.append("\(command.name):\(command.body.text)")
            switch command.name {
            case "echo":
                return Reply(status: 200, body: command.body, headers: [("Cache-Control", "no-store")])
            case "slow":
                try await Task.sleep(for: .milliseconds(Int(command.body.text) ?? 0))
                return Reply(status: 200, body: command.body)
            case "bad":
                throw CommandDecodingError("bad body")
            default:
                throw Boom()
            }
        }
        return CommandStack(
            configuration: configuration, commandTopic: commandTopic, deadLetterTopic: deadLetterTopic,
            producer: producer, runner: Running(runner), handled: handled)
    }

    /// A running client (it dispatches replies until the test shuts it down).
    func client(maxInFlight: Int = 64) async throws -> RequestReplyClient {
        let client = try await RequestReplyClient.make(
            configuration: configuration, instanceId: TestEnvironment.uniqueName("gw"), producer: producer,
            maxInFlight: maxInFlight, logger: testLogger)
        _ = Running(client)
        return client
    }

    func request(_ client: RequestReplyClient, _ name: String, _ body: String, budget: Duration = .seconds(10))
        async throws(RequestError) -> Reply
    {
        try await client.request(
            OutgoingCommand(service: .nearby, name: name, key: nil, body: body.bytes, requestId: "req-\(body)"),
            topic: commandTopic, budget: budget)
    }

    /// The first request also waits for the runner to join its group.
    func warmUp(_ client: RequestReplyClient) async throws {
        let reply = try await request(client, "echo", "warm-up", budget: .seconds(20))
        #expect(reply.status == 200)
    }

    func stop() async throws {
        try await runner.stop()
    }
}

@Suite("Request/reply and command running against the test broker")
struct MessagingIntegrationTests {
    @Test func roundTripThroughACommandRunner() async throws {
        let stack = try await CommandStack.start()
        let client = try await stack.client()
        try await stack.warmUp(client)

        let reply = try await stack.request(client, "echo", "hello")
        #expect(reply.status == 200)
        #expect(reply.body.text == "hello")
        #expect(reply.headers.map { "\($0.0): \($0.1)" } == ["cache-control: no-store"])
        let failed = try await stack.request(client, "boom", "x")
        #expect(failed.status == 500)
        #expect(failed.body.text == #"{"error":"internal error"}"#)

        // Sequential round trips through the broker (printed for the record).
        var samples: [Duration] = []
        for i in 0..<40 {
            let started = ContinuousClock.now
            _ = try await stack.request(client, "echo", "lat-\(i)")
            samples.append(ContinuousClock.now - started)
        }
        samples.sort()
        let (p50, p90) = (percentile(samples, 0.5), percentile(samples, 0.9))
        print("request/reply round trip over \(samples.count): p50 \(p50), p90 \(p90), max \(samples.last ?? .zero)")
        #expect(client.waiting == 0)
        #expect(client.droppedReplies == .init(late: 0, duplicate: 0, unknown: 0))
        await client.shutdown()
        try await stack.stop()
    }

    @Test func twoGatewaysGetOnlyTheirOwnReplies() async throws {
        let stack = try await CommandStack.start()
        let a = try await stack.client()
        let b = try await stack.client()
        #expect(a.replyTopic != b.replyTopic)
        try await stack.warmUp(a)

        let results = try await withThrowingTaskGroup(of: (String, String).self) { group in
            for i in 0..<25 {
                group.addTask { ("A-\(i)", try await stack.request(a, "echo", "A-\(i)").body.text) }
                group.addTask { ("B-\(i)", try await stack.request(b, "echo", "B-\(i)").body.text) }
            }
            var out: [(String, String)] = []
            for try await result in group { out.append(result) }
            return out
        }
        #expect(results.count == 50)
        for (sent, received) in results { #expect(sent == received) }
        // Neither reply topic carried the other gateway's replies.
        try await Task.sleep(for: .milliseconds(100))
        #expect(a.droppedReplies == .init(late: 0, duplicate: 0, unknown: 0))
        #expect(b.droppedReplies == .init(late: 0, duplicate: 0, unknown: 0))
        await a.shutdown()
        await b.shutdown()
        try await stack.stop()
    }

    @Test func timeoutThenTheLateReplyIsDropped() async throws {
        let stack = try await CommandStack.start()
        let client = try await stack.client()
        try await stack.warmUp(client)
        let lateBefore = MetricsRegistry.shared.counter(
            "messaging_replies_dropped_total", help: "", labels: ["reason": "late"]
        ).current

        let started = ContinuousClock.now
        do {
            _ = try await stack.request(client, "slow", "700", budget: .milliseconds(250))
            Issue.record("expected a timeout")
        } catch .timedOut {
            let elapsed = ContinuousClock.now - started
            #expect(elapsed >= .milliseconds(250) && elapsed < .milliseconds(600))
        } catch {
            Issue.record("expected a timeout, got \(error)")
        }
        #expect(client.waiting == 0)
        #expect(await eventually(timeout: .seconds(5)) { client.droppedReplies.late == 1 })
        #expect(
            MetricsRegistry.shared.counter("messaging_replies_dropped_total", help: "", labels: ["reason": "late"])
                .current
                >= lateBefore + 1)
        await client.shutdown()
        try await stack.stop()
    }

    @Test func aSlowReplyIsReadThoughTheReplyReaderWouldRest() async throws {
        // The reply reader probes seldom while idle (`.background`; here at most every 60 s, the gaps doubling from
        // 10 ms after its 2 s of fetching that a send buys): only the deadline sweep, which keeps it fetching while
        // a request waits, has a reply that comes 5 s after its send read within the 6.5 s budget.
        let stack = try await CommandStack.start()
        var configuration = stack.configuration
        try #require(configuration.idleFetch != nil, "the test broker's profile paces idle consumers")
        configuration.backgroundIdleFetchMaxGap = .seconds(60)
        let client = try await RequestReplyClient.make(
            configuration: configuration, instanceId: TestEnvironment.uniqueName("gw"), producer: stack.producer,
            maxInFlight: 8, logger: testLogger)
        _ = Running(client)
        try await stack.warmUp(client)

        let reply = try await stack.request(client, "slow", "5000", budget: .milliseconds(6500))
        #expect(reply.status == 200)
        #expect(reply.body.text == "5000")
        await client.shutdown()
        try await stack.stop()
    }

    @Test func overTheInFlightCapIsUnavailableAtOnce() async throws {
        let stack = try await CommandStack.start()
        let client = try await stack.client(maxInFlight: 2)
        try await stack.warmUp(client)
        async let first = stack.request(client, "slow", "400")
        async let second = stack.request(client, "slow", "400")
        #expect(await eventually(timeout: .seconds(2)) { client.waiting == 2 })
        let started = ContinuousClock.now
        do {
            _ = try await stack.request(client, "echo", "third")
            Issue.record("expected unavailable")
        } catch .unavailable {
            #expect(ContinuousClock.now - started < .milliseconds(100))
        } catch {
            Issue.record("expected unavailable, got \(error)")
        }
        #expect(try await first.status == 200)
        #expect(try await second.status == 200)

        // Cancelling a waiting request frees its slot.
        let cancelled = Task { try await stack.request(client, "slow", "300") }
        #expect(await eventually(timeout: .seconds(2)) { client.waiting == 1 })
        cancelled.cancel()
        do {
            _ = try await cancelled.value
            Issue.record("expected cancellation")
        } catch let error as RequestError {
            guard case .unavailable = error else {
                Issue.record("expected unavailable, got \(error)")
                return
            }
        }
        #expect(client.waiting == 0)
        await client.shutdown()
        try await stack.stop()
    }

    @Test func undecodableCommandsGoToTheDeadLetterTopic() async throws {
        let stack = try await CommandStack.start()
        let client = try await stack.client()
        try await stack.warmUp(client)
        let dead = Collected<KafkaMessage>()
        let dlqReader = try KafkaGroupConsumer.make(
            configuration: stack.configuration, groupId: TestEnvironment.uniqueName("kt-dlq-reader"),
            topics: [stack.deadLetterTopic], logger: testLogger)
        dlqReader.setHandler(maxInFlight: 1) { dead.append($0) }
        let reading = Running(dlqReader)

        // Garbage without headers, straight onto the command topic.
        let garbage: [UInt8] = [0xff, 0x00, 0xde, 0xad, 0xbe, 0xef]
        let garbageDelivery = try await stack.producer.send(
            topic: stack.commandTopic, key: "garbage-key".bytes, value: garbage, headers: [])
        // A command the handler cannot decode: the gateway gets a 500 instead of waiting.
        let bad = try await stack.request(client, "bad", "not-json")
        #expect(bad.status == 500)
        #expect(bad.body.text == #"{"error":"internal error"}"#)
        // The runner keeps serving.
        #expect(try await stack.request(client, "echo", "still-here").body.text == "still-here")

        #expect(await eventually { dead.count >= 2 })
        let deadGarbage = try #require(dead.all.first { $0.value == garbage })
        #expect(deadGarbage.key == "garbage-key".bytes)
        #expect(deadGarbage.header(MessageHeaders.dlqTopic) == stack.commandTopic)
        #expect(deadGarbage.header(MessageHeaders.dlqPartition) == String(garbageDelivery.partition))
        #expect(deadGarbage.header(MessageHeaders.dlqOffset) == String(garbageDelivery.offset))
        #expect(deadGarbage.header(MessageHeaders.dlqError)?.contains(MessageHeaders.command) == true)
        let deadBad = try #require(dead.all.first { $0.value == "not-json".bytes })
        #expect(deadBad.header(MessageHeaders.dlqError) == "bad body")
        #expect(deadBad.header(MessageHeaders.command) == "bad")
        #expect(stack.handled.all.filter { $0.hasPrefix("echo:still-here") }.count == 1)

        try await reading.stop()
        await client.shutdown()
        try await stack.stop()
    }

    @Test func commandsWithASpentBudgetAreDropped() async throws {
        let stack = try await CommandStack.start()
        let client = try await stack.client()
        try await stack.warmUp(client)
        let expired = MetricsRegistry.shared.counter(
            "messaging_commands_expired_total", help: "", labels: ["topic": stack.commandTopic])

        // Sent 5 s ago with a 1 s budget, asking for a reply on the client's topic.
        let headers = [
            KafkaHeader(MessageHeaders.correlationId, "expired-correlation"),
            KafkaHeader(MessageHeaders.replyTo, client.replyTopic),
            KafkaHeader(MessageHeaders.budgetMs, "1000"),
            KafkaHeader(MessageHeaders.sentAtMs, String(Timestamp.nowMillis() - 5000)),
            KafkaHeader(MessageHeaders.command, "echo"),
        ]
        _ = try await stack.producer.send(topic: stack.commandTopic, key: nil, value: "expired".bytes, headers: headers)
        #expect(await eventually(timeout: .seconds(5)) { expired.current == 1 })
        #expect(try await stack.request(client, "echo", "fresh").body.text == "fresh")
        #expect(!stack.handled.all.contains("echo:expired"))
        #expect(client.droppedReplies.unknown == 0)
        await client.shutdown()
        try await stack.stop()
    }

    @Test func standardTopicsAndEventPublishing() async throws {
        let configuration = try testConfiguration()
        try await ensureStandardTopics(configuration: configuration, logger: testLogger)
        let specs = standardTopicSpecs(environment: Environment(["KAFKA_COMMAND_PARTITIONS": "3"]))
        let expected =
            ServiceName.allCases.map(\.commandTopic) + [
                Topics.pushRequests, Topics.identifyEffects, Topics.events, Topics.deadLetter,
            ]
        #expect(specs.map(\.name).sorted() == Array(Set(expected)).sorted())
        #expect(specs.first { $0.name == ServiceName.identify.commandTopic }?.partitions == 3)
        for spec in specs {
            let count = try await KafkaAdmin.partitionCount(
                configuration: configuration, topic: spec.name, timeout: .seconds(5), logger: testLogger)
            #expect((count ?? 0) >= 1)
        }
        // A topic of its own: a fragment on mapvest.events.v1 would reach every real consumer of the events.
        let events = TestEnvironment.uniqueName("kt-events")
        try await makeTopics(configuration, [(events, 1)])
        let producer = try KafkaProducer.make(configuration: configuration, logger: testLogger)
        let publisher = EventPublisher(producer: producer, logger: testLogger)
        #expect(await publisher.publish(topic: events, key: "user-1", value: #"{"specversion":"1.0"}"#.bytes))
        await producer.shutdown()
        #expect(await publisher.publish(topic: events, key: "user-1", value: []) == false)
    }
}
