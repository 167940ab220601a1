import Foundation
import Kafka
import Messaging
import Runtime
import Testing

@Suite("Offset tracking (no broker)")
struct OffsetTrackerTests {
    let tp = TopicPartition(topic: "t", partition: 0)

    @Test func commitsStopAtTheLowestUnfinishedOffset() {
        var tracker = OffsetTracker()
        let epoch = tracker.assign(tp)
        for offset in Int64(10)..<20 { #expect(tracker.begin(tp, offset: offset) == epoch) }
        // 10 and 11 finish, 12 is slow, 13..19 finish.
        tracker.finish(tp, epoch: epoch, offset: 10)
        tracker.finish(tp, epoch: epoch, offset: 11)
        for offset in Int64(13)..<20 { tracker.finish(tp, epoch: epoch, offset: offset) }
        #expect(tracker.takeCommits().map(\.1) == [12])
        #expect(tracker.takeCommits().isEmpty)  // nothing new
        #expect(tracker.outstanding() == 1)
        tracker.finish(tp, epoch: epoch, offset: 12)
        #expect(tracker.takeCommits().map(\.1) == [20])
        #expect(tracker.outstanding() == 0)
    }

    @Test func anUnfinishedFirstOffsetHoldsTheCommitThere() {
        var tracker = OffsetTracker()
        let epoch = tracker.assign(tp)
        _ = tracker.begin(tp, offset: 5)
        _ = tracker.begin(tp, offset: 6)
        let advanced = tracker.finish(tp, epoch: epoch, offset: 6)
        #expect(!advanced)
        // 5 (the lowest unfinished) is committable, never 7: it is where consumption would restart anyway.
        #expect(tracker.takeCommits().map(\.1) == [5])
        #expect(tracker.takeCommits().isEmpty)
        #expect(tracker.outstanding() == 1)
    }

    @Test func abandonedMessagesBlockCommitsButAreNotAwaited() {
        var tracker = OffsetTracker()
        let epoch = tracker.assign(tp)
        for offset in Int64(0)..<3 { _ = tracker.begin(tp, offset: offset) }
        tracker.finish(tp, epoch: epoch, offset: 0)
        tracker.abandon(tp, epoch: epoch, offset: 1)
        tracker.finish(tp, epoch: epoch, offset: 2)
        #expect(tracker.outstanding() == 0)
        #expect(tracker.takeCommits().map(\.1) == [1])
    }

    @Test func finishesFromAnEarlierAssignmentAreIgnored() {
        var tracker = OffsetTracker()
        let old = tracker.assign(tp)
        _ = tracker.begin(tp, offset: 0)
        tracker.revoke(tp)
        let new = tracker.assign(tp)
        _ = tracker.begin(tp, offset: 0)
        let staleAdvanced = tracker.finish(tp, epoch: old, offset: 0)
        #expect(!staleAdvanced)
        #expect(tracker.outstanding() == 1)
        let advanced = tracker.finish(tp, epoch: new, offset: 0)
        #expect(advanced)
    }

    @Test func duplicatesAndUnassignedPartitionsAreNotTracked() {
        var tracker = OffsetTracker()
        #expect(tracker.begin(tp, offset: 0) == nil)
        tracker.assign(tp)
        _ = tracker.begin(tp, offset: 3)
        #expect(tracker.begin(tp, offset: 3) == nil)
        #expect(tracker.begin(tp, offset: 2) == nil)
    }

    @Test func failedCommitsAreHandedOutAgain() {
        var tracker = OffsetTracker()
        let epoch = tracker.assign(tp)
        _ = tracker.begin(tp, offset: 0)
        tracker.finish(tp, epoch: epoch, offset: 0)
        #expect(tracker.takeCommits().map(\.1) == [1])
        tracker.commitFailed(tp, offset: 1)
        #expect(tracker.takeCommits().map(\.1) == [1])
    }

    @Test func manyOutOfOrderFinishesCompactAndStayCorrect() {
        var tracker = OffsetTracker()
        let epoch = tracker.assign(tp)
        let count: Int64 = 5000
        for offset in 0..<count { _ = tracker.begin(tp, offset: offset) }
        for offset in (1..<count).reversed() { tracker.finish(tp, epoch: epoch, offset: offset) }
        #expect(tracker.takeCommits().map(\.1) == [0])
        tracker.finish(tp, epoch: epoch, offset: 0)
        #expect(tracker.takeCommits().map(\.1) == [count])
        #expect(tracker.partitions[tp]?.entries.isEmpty == true)
    }
}

@Suite("Configuration (no broker)")
struct ConfigurationTests {
    @Test func readsBrokersPassthroughAndProfile() {
        let env = Environment([
            "KAFKA_BROKERS": "b1:9092,b2:9092", "KAFKA_CONFIG_SECURITY_PROTOCOL": "ssl",
            "KAFKA_CONFIG_SASL_MECHANISMS": "PLAIN", "MAPVEST_ENV": "dev",
        ])
        let c = KafkaConfiguration.fromEnvironment(env)
        #expect(c.brokers == "b1:9092,b2:9092")
        #expect(c.properties == ["security.protocol": "ssl", "sasl.mechanisms": "PLAIN"])
        #expect(c.isDevelopment)
        let consumer = c.librdkafkaProperties(for: .groupConsumer(groupId: "g"))
        #expect(consumer["fetch.wait.max.ms"] == "1")
        #expect(consumer["session.timeout.ms"] == "1500")
        #expect(consumer["partition.assignment.strategy"] == "cooperative-sticky")
        #expect(consumer["group.instance.id"] == nil)
        #expect(consumer["max.poll.interval.ms"] == "7000")
        #expect(consumer["enable.auto.commit"] == "false")
        #expect(consumer["enable.auto.offset.store"] == "false")
        #expect(consumer["auto.offset.reset"] == "earliest")
        #expect(consumer["socket.nagle.disable"] == "true")
        #expect(consumer["security.protocol"] == "ssl")
        #expect(consumer["linger.ms"] == nil)
        let producer = c.librdkafkaProperties(for: .producer)
        #expect(producer["enable.idempotence"] == "true")
        #expect(producer["acks"] == "all")
        #expect(producer["linger.ms"] == "0")
        #expect(producer["fetch.wait.max.ms"] == nil)
    }

    @Test func productionKeepsLibrdkafkaDefaultsButLinger() {
        let c = KafkaConfiguration.fromEnvironment(Environment(["KAFKA_BROKERS": "k:9092"]))
        #expect(!c.isDevelopment)
        let producer = c.librdkafkaProperties(for: .producer)
        // librdkafka's 5 ms default would delay both produce hops of every request/reply.
        #expect(producer["linger.ms"] == "0")
        #expect(
            KafkaConfiguration(brokers: "k:9092", properties: ["linger.ms": "5"]).librdkafkaProperties(for: .producer)[
                "linger.ms"] == "5")
        #expect(producer["socket.nagle.disable"] == "true")
        #expect(c.librdkafkaProperties(for: .groupConsumer(groupId: "g"))["fetch.wait.max.ms"] == nil)
    }

    @Test func productionTimeoutsAndStaticMembership() {
        let c = KafkaConfiguration.fromEnvironment(
            Environment(["KAFKA_BROKERS": "k:9092", "KAFKA_GROUP_INSTANCE_ID": "identify-0"]))
        let consumer = c.librdkafkaProperties(for: .groupConsumer(groupId: "g"))
        #expect(consumer["session.timeout.ms"] == "10000")
        #expect(consumer["heartbeat.interval.ms"] == "1000")
        #expect(consumer["partition.assignment.strategy"] == "cooperative-sticky")
        #expect(consumer["group.instance.id"] == "identify-0")
        // Readers (manual assignment, no group membership) never get a static identity.
        #expect(c.librdkafkaProperties(for: .reader(groupId: "r"))["group.instance.id"] == nil)
    }

    @Test func bootstrapFileAndDefault() throws {
        let path = NSTemporaryDirectory() + "kafka-bootstrap-\(UUID().uuidString)"
        try "127.0.0.1:1234,127.0.0.1:5678\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(
            KafkaConfiguration.fromEnvironment(Environment(["KAFKA_BOOTSTRAP_FILE": path])).brokers
                == "127.0.0.1:1234,127.0.0.1:5678")
        #expect(KafkaConfiguration.fromEnvironment(Environment([:])).brokers == "127.0.0.1:9092")
    }

    @Test func invalidPropertyFailsAtCreation() {
        let c = KafkaConfiguration(brokers: "127.0.0.1:1", properties: ["no.such.property": "x"])
        #expect(throws: KafkaError.self) { try KafkaProducer.make(configuration: c, logger: testLogger) }
    }
}

@Suite("Request/reply bookkeeping (no broker)")
struct ReplyWaitersTests {
    func reply(_ id: String) -> KafkaMessage {
        KafkaMessage(
            topic: "r", partition: 0, offset: 0, key: nil, value: [], headers: [KafkaHeader("mv-correlation-id", id)])
    }

    @Test func deliversAndClassifiesDroppedReplies() async {
        let waiters = ReplyWaiters()
        #expect(waiters.register("a", limit: 2) == .registered)
        #expect(waiters.register("b", limit: 2) == .registered)
        #expect(waiters.register("c", limit: 2) == .overCapacity)
        #expect(waiters.deliver(reply("a"), correlationId: "a") == nil)
        guard case .reply = await waiters.wait("a") else {
            Issue.record("expected a reply")
            return
        }
        #expect(waiters.deliver(reply("a"), correlationId: "a") == .duplicate)
        waiters.resolve("b", .timedOut)
        #expect(waiters.deliver(reply("b"), correlationId: "b") == .late)
        #expect(waiters.deliver(reply("zzz"), correlationId: "zzz") == .unknown)
        #expect(waiters.deliver(reply("x"), correlationId: nil) == .unknown)
        guard case .timedOut = await waiters.wait("b") else {
            Issue.record("expected a timeout")
            return
        }
        #expect(waiters.count == 0)
    }

    @Test func passedDeadlinesTimeOutInOrder() async {
        let waiters = ReplyWaiters()
        let now = ContinuousClock.now
        // Two budgets, each registered in deadline order.
        for (id, budget, offset) in [("soon", 1, 10), ("answered", 2, 5), ("mid", 1, 20), ("late", 2, 30)] {
            let timeout = (Duration.seconds(budget), now + .milliseconds(offset))
            #expect(waiters.register(id, limit: 10, timeout: timeout) == .registered)
        }
        #expect(waiters.register("none", limit: 10) == .registered)
        #expect(waiters.deliver(reply("answered"), correlationId: "answered") == nil)
        waiters.expire(now: now + .milliseconds(20))
        for id in ["soon", "mid"] {
            guard case .timedOut = await waiters.wait(id) else {
                Issue.record("expected \(id) to time out")
                return
            }
        }
        guard case .reply = await waiters.wait("answered") else {
            Issue.record("expected the answered request's reply")
            return
        }
        #expect(waiters.count == 2)  // "late" (not yet due) and "none" (no deadline)
        #expect(waiters.deliver(reply("late"), correlationId: "late") == nil)
        waiters.expire(now: now + .seconds(60))
        #expect(waiters.count == 2)  // "late" holds its reply until waited for; "none" never expires
        #expect(waiters.deliver(reply("soon"), correlationId: "soon") == .late)
    }

    @Test func cancellationResolvesTheWaiter() async {
        let waiters = ReplyWaiters()
        _ = waiters.register("a", limit: 1)
        let task = Task { await waiters.wait("a") }
        try? await Task.sleep(for: .milliseconds(20))
        task.cancel()
        guard case .cancelled = await task.value else {
            Issue.record("expected cancellation")
            return
        }
        #expect(waiters.count == 0)
        #expect(waiters.deliver(reply("a"), correlationId: "a") == .late)
    }

    @Test func closeAnswersEveryoneAndRefusesNewRequests() async {
        let waiters = ReplyWaiters()
        _ = waiters.register("a", limit: 5)
        let task = Task { await waiters.wait("a") }
        try? await Task.sleep(for: .milliseconds(20))
        waiters.close()
        guard case .closed = await task.value else {
            Issue.record("expected closed")
            return
        }
        #expect(waiters.register("b", limit: 5) == .closed)
    }

    @Test func deadlineIsSkewSafe() {
        let now = ContinuousClock.now
        let nowMs: Int64 = 1_000_000
        func remaining(_ budget: String?, _ sentAt: Int64?) -> Duration?? {
            CommandProcessor.deadline(
                budgetHeader: budget, sentAtHeader: sentAt.map { String($0) }, nowMs: nowMs, now: now
            ).map { $0.map { $0 - now } }
        }
        #expect(remaining("1000", nowMs - 300) == .some(.some(.milliseconds(700))))
        // A sender clock ahead of ours never extends the budget.
        #expect(remaining("1000", nowMs + 5000) == .some(.some(.milliseconds(1000))))
        #expect(remaining("1000", nowMs - 1000) == .some(.none))
        #expect(remaining("1000", nowMs - 5000) == .some(.none))
        #expect(remaining("abc", nowMs) == .none)
        #expect(remaining(nil, nil) == .some(.some(CommandRunner.defaultBudget)))
    }

    @Test func replyBodiesAndHeaders() {
        let message = KafkaMessage(
            topic: "r", partition: 0, offset: 1, key: nil, value: "{}".bytes,
            headers: [KafkaHeader("mv-status", "201"), KafkaHeader("mv-h-cache-control", "no-store")])
        let reply = RequestReplyClient.reply(from: message, logger: testLogger)
        #expect(reply.status == 201)
        #expect(reply.headers.map { "\($0.0)=\($0.1)" } == ["cache-control=no-store"])
        #expect(Reply.error(400, "bad \"x\"").body.text == #"{"error":"bad \"x\""}"#)
        #expect(Reply.json(200, ["a": "b/c"]).body.text == #"{"a":"b/c"}"#)
        #expect(RequestReplyClient.sanitize("pod:7/a b") == "pod-7-a-b")
    }
}
