import Contracts
import Foundation
import Kafka
import Messaging
import Postgres
import Runtime
import Scheduling
import Synchronization
import TestSupport
import Testing
import Tracing

/// The scheduler component: slot arithmetic in a time zone (pure), and once-per-slot claims across replicas against
/// the real Postgres and broker, with an injected clock.
@Suite(.serialized) struct SchedulingTests {
    static func date(_ iso: String) throws -> Date {
        try #require(Timestamp.parse(iso))
    }

    @Test func dailyAndEveryFiveMinuteSlots() throws {
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        let daily = Schedule.daily(hour: 7, minute: 0)
        // 07:03 New York (EST, UTC-5) → today's 07:00; 06:59 → yesterday's.
        #expect(
            daily.latestSlot(atOrBefore: try Self.date("2026-12-01T12:03:10.000Z"), in: newYork)
                == (try Self.date("2026-12-01T12:00:00.000Z")))
        #expect(
            daily.latestSlot(atOrBefore: try Self.date("2026-12-01T11:59:00.000Z"), in: newYork)
                == (try Self.date("2026-11-30T12:00:00.000Z")))
        // Summer time moves the slot's UTC instant.
        #expect(
            daily.latestSlot(atOrBefore: try Self.date("2026-07-01T11:30:00.000Z"), in: newYork)
                == (try Self.date("2026-07-01T11:00:00.000Z")))
        let movers = Schedule.minutes(every: 5, offset: 0)
        #expect(
            movers.latestSlot(atOrBefore: try Self.date("2026-12-01T10:07:59.000Z"), in: .gmt)
                == (try Self.date("2026-12-01T10:05:00.000Z")))
        #expect(
            movers.latestSlot(atOrBefore: try Self.date("2026-12-01T10:10:00.000Z"), in: .gmt)
                == (try Self.date("2026-12-01T10:10:00.000Z")))
        #expect(CommandScheduler.slotKey(try Self.date("2026-12-01T07:00:00.000Z")) == "2026-12-01T07:00Z")
    }

    @Test func settingsTheSimulatedClockIsDevOnlyAndStrict() throws {
        let dev = ["MAPVEST_ENV": "dev"]
        let wall = try SchedulerSettings.fromEnvironment(Environment([:]))
        #expect(
            wall.clock.rate == 1 && wall.interval == .seconds(15) && wall.lease == .seconds(30) && wall.pause == nil)
        // Production refuses every test setting, naming it.
        for key in ["SCHEDULER_CLOCK_START", "SCHEDULER_CLOCK_RATE", "SCHEDULER_PAUSE"] {
            #expect(throws: ConfigurationError.self) { try SchedulerSettings.fromEnvironment(Environment([key: "x"])) }
        }
        let fast = try SchedulerSettings.fromEnvironment(
            Environment(
                dev.merging([
                    "SCHEDULER_CLOCK_START": "2031-01-01T06:45:00Z", "SCHEDULER_CLOCK_RATE": "30",
                    "SCHEDULER_LEASE_MS": "4000",
                    "SCHEDULER_PAUSE": "briefs.daily:claimed:3000",
                ]) { $1 }))
        #expect(fast.interval == .milliseconds(500) && fast.lease == .seconds(4))
        #expect(fast.pause == SchedulerPause(job: "briefs.daily", phase: .claimed, duration: .seconds(3)))
        let now = fast.clock.now().timeIntervalSince(try Self.date("2031-01-01T06:45:00.000Z"))
        #expect(now >= 0 && now < 60)
        for bad in [
            ["SCHEDULER_CLOCK_START": "tomorrow"], ["SCHEDULER_CLOCK_RATE": "30"],
            ["SCHEDULER_CLOCK_START": "2031-01-01T06:45:00Z", "SCHEDULER_CLOCK_RATE": "1e400"],
            ["SCHEDULER_CLOCK_START": "2031-01-01T06:45:00Z", "SCHEDULER_CLOCK_RATE": "0.5"],
            ["SCHEDULER_LEASE_MS": "10"], ["SCHEDULER_LEASE_MS": "abc"], ["SCHEDULER_PAUSE": "briefs.daily:later:10"],
            ["SCHEDULER_PAUSE": "briefs.daily:claimed"], ["SCHEDULER_PAUSE": ":claimed:10"],
        ] {
            #expect(throws: ConfigurationError.self) {
                try SchedulerSettings.fromEnvironment(Environment(dev.merging(bad) { $1 }))
            }
        }
        // A lease (plus one tick) that outlasts a job's grace in real time would lose a dead claimant's slot.
        let movers = ScheduledCommand(
            job: "m", schedule: .minutes(every: 5, offset: 0), topic: "t", command: "c", key: "k", body: [])
        try fast.check(jobs: [movers])
        let slow = try SchedulerSettings.fromEnvironment(
            Environment(
                dev.merging([
                    "SCHEDULER_CLOCK_START": "2031-01-01T06:45:00Z", "SCHEDULER_CLOCK_RATE": "60",
                    "SCHEDULER_LEASE_MS": "5000",
                ]) { $1 }))
        #expect(throws: ConfigurationError.self) { try slow.check(jobs: [movers]) }
    }

    static func pool() async throws -> (PostgresPool, String) {
        let pool = try await PostgresPool.make(
            url: try TestEnvironment.require("POSTGRES_URL"), size: 4, logger: Logger(label: "t", level: .error))
        let schema = "mvt_sched_" + String(UInt32.random(in: 0...UInt32.max))
        try await pool.migrate(
            schema: schema, migrations: [SlotClaims.migration(version: 1, table: "\(schema).job_slots")])
        return (pool, "\(schema).job_slots")
    }

    @Test func aSlotIsClaimedOnceAndTakenOverAfterItsLease() async throws {
        let (pool, table) = try await Self.pool()
        let a = SlotClaims(db: pool, table: table, owner: "a")
        let b = SlotClaims(db: pool, table: table, owner: "b")
        // Twenty claimants at once: one wins.
        let outcomes = try await withThrowingTaskGroup(of: SlotClaims.Claim.self) { group in
            for i in 0..<20 {
                group.addTask { try await (i % 2 == 0 ? a : b).claim(job: "j", slot: "s1", lease: .seconds(30)) }
            }
            return try await group.reduce(into: [SlotClaims.Claim]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == .won }.count == 1 && outcomes.filter { $0 == .held }.count == 19)

        // A claimant that died mid-slot: its lease runs out and the next claimant takes over and finishes.
        #expect(try await a.claim(job: "j", slot: "s2", lease: .milliseconds(300)) == .won)
        #expect(try await b.claim(job: "j", slot: "s2", lease: .seconds(30)) == .held)
        let ran = Atomic<Int>(0)
        let outcome = try await b.once(
            job: "j", slot: "s2", lease: .seconds(30), deadline: .now + .seconds(5), poll: .milliseconds(100)
        ) {
            ran.add(1, ordering: .relaxed)
            return true
        }
        #expect(outcome == .ran && ran.load(ordering: .relaxed) == 1)
        #expect(try await a.claim(job: "j", slot: "s2", lease: .seconds(30)) == .done)
        #expect(
            try await a.once(job: "j", slot: "s2", lease: .seconds(1), deadline: .now + .seconds(1)) { true }
                == .alreadyDone)

        // Failed work releases the slot at once.
        #expect(
            try await a.once(job: "j", slot: "s3", lease: .seconds(30), deadline: .now + .seconds(1)) { false }
                == .failed)
        #expect(try await b.claim(job: "j", slot: "s3", lease: .seconds(30)) == .won)
        await pool.close()
    }

    @Test func twoSchedulersPublishEachSlotOnce() async throws {
        let (pool, table) = try await Self.pool()
        let kafka = KafkaConfiguration.fromEnvironment(Environment())
        let logger = Logger(label: "t", level: .error)
        let producer = try KafkaProducer.make(configuration: kafka, logger: logger)
        let topic = "mapvest.test.scheduler.\(UInt32.random(in: 0...UInt32.max)).v1"
        try await KafkaAdmin.ensureTopics(
            configuration: kafka, specs: [KafkaAdmin.TopicSpec(name: topic, partitions: 1)], timeout: .seconds(20),
            logger: logger)
        let job = ScheduledCommand(
            job: "daily", schedule: .daily(hour: 7, minute: 0), topic: topic, command: "test.daily.v1", key: "all",
            body: Array("{}".utf8))
        let now = Mutex(try Self.date("2026-12-01T06:59:50.000Z"))
        let clock: @Sendable () -> Date = { now.withLock { $0 } }
        let schedulers = ["a", "b"].map {
            CommandScheduler(
                jobs: [job], claims: SlotClaims(db: pool, table: table, owner: $0),
                publisher: EventPublisher(producer: producer, logger: logger), timeZone: .gmt, clock: clock,
                logger: logger)
        }
        // 06:59:50: yesterday's slot is past its grace; nothing is due.
        #expect(await schedulers[0].tick(now: clock()).isEmpty)
        now.withLock { $0 = $0.addingTimeInterval(20) }
        async let first = schedulers[0].tick(now: clock())
        async let second = schedulers[1].tick(now: clock())
        let published = await first + second
        #expect(published == ["daily@2026-12-01T07:00Z"])
        // Later ticks inside the grace period find the slot done.
        now.withLock { $0 = $0.addingTimeInterval(240) }
        #expect(await schedulers[1].tick(now: clock()).isEmpty)

        let received = Mutex<[String]>([])
        let consumer = try KafkaGroupConsumer.make(
            configuration: kafka, groupId: "test-sched-\(UInt32.random(in: 0...UInt32.max))", topics: [topic],
            logger: logger)
        consumer.setHandler(maxInFlight: 4) { message in
            received.withLock { $0.append(message.header(MessageHeaders.command) ?? "") }
        }
        let consuming = Task { try await consumer.run() }
        for _ in 0..<100 where received.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(100)) }
        try await Task.sleep(for: .milliseconds(500))
        #expect(received.withLock { $0 } == ["test.daily.v1"])
        await consumer.shutdown()
        try await consuming.value
        producer.flush(timeout: .seconds(5))
        await pool.close()
    }

    /// Keeps exported spans in memory.
    final class Spans: SpanExporting {
        private let spans = Mutex<[SpanData]>([])
        func export(_ span: SpanData) { spans.withLock { $0.append(span) } }
        var exported: [SpanData] { spans.withLock { $0 } }
    }

    @Test func aClaimedSlotsRunIsTheRootOfTheTraceItsCommandCarries() async throws {
        let (pool, table) = try await Self.pool()
        let kafka = KafkaConfiguration.fromEnvironment(Environment())
        let logger = Logger(label: "t", level: .error)
        let producer = try KafkaProducer.make(configuration: kafka, logger: logger)
        let topic = "mapvest.test.scheduler.\(UInt32.random(in: 0...UInt32.max)).v1"
        try await KafkaAdmin.ensureTopics(
            configuration: kafka, specs: [KafkaAdmin.TopicSpec(name: topic, partitions: 1)], timeout: .seconds(20),
            logger: logger)
        let job = ScheduledCommand(
            job: "traced", schedule: .daily(hour: 7, minute: 0), topic: topic, command: "test.traced.v1", key: "all",
            body: Array("{}".utf8))
        let now = try Self.date("2026-12-01T07:00:10.000Z")
        let scheduler = CommandScheduler(
            jobs: [job], claims: SlotClaims(db: pool, table: table, owner: "a"),
            publisher: EventPublisher(producer: producer, logger: logger), timeZone: .gmt, clock: { now },
            logger: logger)
        let spans = Spans()
        Tracing.install(Tracer(sampler: .alwaysOn, exporter: spans))
        defer { Tracing.install(nil) }
        // Even a tick made inside some other span starts the run's own trace.
        let published = await Tracing.withSpan("unrelated") { _ in await scheduler.tick(now: now) }
        #expect(published == ["traced@2026-12-01T07:00Z"])
        // A tick that claims nothing starts no trace.
        #expect(await scheduler.tick(now: now).isEmpty)

        let received = Mutex<[String]>([])
        let consumer = try KafkaGroupConsumer.make(
            configuration: kafka, groupId: "test-sched-\(UInt32.random(in: 0...UInt32.max))", topics: [topic],
            logger: logger)
        consumer.setHandler(maxInFlight: 4) { message in
            received.withLock { $0.append(message.header(TraceContext.traceparentHeader) ?? "") }
        }
        let consuming = Task { try await consumer.run() }
        for _ in 0..<100 where received.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(100)) }
        await consumer.shutdown()
        try await consuming.value
        producer.flush(timeout: .seconds(5))
        await pool.close()

        let runs = spans.exported.filter { $0.name == "traced run" }
        let run = try #require(runs.first)
        #expect(runs.count == 1 && run.parentSpanID == nil)
        #expect(run.attributes.contains(Attribute("mapvest.slot", "2026-12-01T07:00Z")))
        let unrelated = try #require(spans.exported.first { $0.name == "unrelated" })
        #expect(unrelated.context.traceID != run.context.traceID)
        let producerSpan = try #require(
            spans.exported.first { $0.kind == .producer && $0.parentSpanID == run.context.spanID })
        let header = try #require(received.withLock { $0.first })
        #expect(header == producerSpan.context.traceparent)
    }
}
