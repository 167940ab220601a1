import Contracts
import Kafka
import Messaging
import Runtime
import Synchronization
import TestSupport
import Testing

/// What a `CommandRunner` does after the reply: failing after-reply work is retried and holds the offset, and a
/// still-failing dependency is a 503.
@Suite("After-reply work and transient failures")
struct AfterReplyTests {
    @Test func failingAfterReplyWorkIsRetriedAndHoldsTheOffsetUntilItSucceeds() async throws {
        let configuration = try testConfiguration()
        let topic = TestEnvironment.uniqueName("kt-after-reply")
        try await makeTopics(configuration, [(topic, 1)])  // the mock broker may give it more partitions
        let producer = try KafkaProducer.make(configuration: configuration, logger: testLogger)
        let storeUp = Gate()
        let attempts = Atomic<Int>(0)
        let done = Collected<String>()
        let partitionOf = Collected<Int32>()
        let runner = try CommandRunner(
            configuration: configuration, topic: topic, groupId: TestEnvironment.uniqueName("kt-after-reply"),
            producer: producer, maxInFlight: 4, logger: testLogger
        ) { command in
            let body = command.body.text
            guard command.name == "effect" else { return Reply(status: 200, body: command.body) }
            partitionOf.append(command.message.partition)
            return Reply(status: 200, body: command.body).then {
                attempts.add(1, ordering: .relaxed)
                guard storeUp.isOpen else { throw Boom() }
                done.append(body)
            }
        }
        let running = Running(runner)
        let client = try await RequestReplyClient.make(
            configuration: configuration, instanceId: TestEnvironment.uniqueName("gw"), producer: producer,
            maxInFlight: 8, logger: testLogger)
        let replies = Running(client)
        // The reply comes at once although its after-reply work fails (the first request also waits for the join).
        let reply = try await client.request(
            OutgoingCommand(service: .nearby, name: "effect", key: nil, body: "find-1".bytes, requestId: "e"),
            topic: topic, budget: .seconds(20))
        #expect(reply.status == 200)
        let partition = try #require(partitionOf.all.first)
        #expect(await eventually(timeout: .seconds(5)) { attempts.load(ordering: .relaxed) >= 3 })
        // Never committed past the message whose work has not succeeded (the old runner committed here).
        try await Task.sleep(for: .milliseconds(500))
        // (Offset 0 may be committed: that resumes at the held message.)
        #expect((try await runner.committedOffset(topic: topic, partition: partition) ?? 0) == 0)
        #expect(done.all.isEmpty)

        storeUp.release()
        #expect(await eventually(timeout: .seconds(10)) { done.all == ["find-1"] })
        #expect(try await eventually { try await runner.committedOffset(topic: topic, partition: partition) == 1 })
        try await replies.stop()
        try await running.stop()
    }

    @Test func aDependencyStillFailingAtTheDeadlineIsA503() async throws {
        let configuration = try testConfiguration()
        let topic = TestEnvironment.uniqueName("kt-unavailable")
        try await makeTopics(configuration, [(topic, 1)])  // the mock broker may give it more partitions
        let producer = try KafkaProducer.make(configuration: configuration, logger: testLogger)
        let runner = try CommandRunner(
            configuration: configuration, topic: topic, groupId: TestEnvironment.uniqueName("kt-unavailable"),
            producer: producer, maxInFlight: 4, logger: testLogger
        ) { command in
            guard command.name == "down" else { return Reply(status: 200, body: command.body) }
            // The handler sees the command's deadline, less the reply margin, as the task's deadline.
            let deadline = try #require(TaskDeadline.current)
            #expect(deadline <= command.deadline - CommandRunner.replyMargin)
            throw PublishError(topic: "x", reason: "broker unreachable")
        }
        let running = Running(runner)
        let client = try await RequestReplyClient.make(
            configuration: configuration, instanceId: TestEnvironment.uniqueName("gw"), producer: producer,
            maxInFlight: 8, logger: testLogger)
        let replies = Running(client)
        let reply = try await client.request(
            OutgoingCommand(service: .nearby, name: "down", key: nil, body: [], requestId: "d"), topic: topic,
            budget: .seconds(20))
        #expect(reply.status == 503)
        #expect(reply.body.text == #"{"error":"event bus unavailable"}"#)
        try await replies.stop()
        try await running.stop()
    }
}
