import Contracts
import Foundation
import Kafka
import Messaging
import Runtime
import Synchronization
import Tracing

/// A job the scheduler publishes: one command on a topic when its schedule comes due.
public struct ScheduledCommand: Sendable {
    /// The slot table's job name, e.g. `briefs.daily`.
    public var job: String
    public var schedule: Schedule
    public var topic: String
    /// The `mv-command` header.
    public var command: String
    public var key: String
    public var body: [UInt8]

    public init(job: String, schedule: Schedule, topic: String, command: String, key: String, body: [UInt8]) {
        self.job = job
        self.schedule = schedule
        self.topic = topic
        self.command = command
        self.key = key
        self.body = body
    }
}

/// Publishes scheduled commands, each slot once across every replica running a scheduler (a scheduled job is a
/// command on a topic, so an outside producer can publish the same one). Each tick, per job, takes the latest due
/// slot still inside its grace period, claims it in `SlotClaims` (lease `claimLease`), publishes the command, and
/// marks the slot done; a failed publish releases the slot, and a replica that died holding it leaves a lease that
/// another replica's tick takes over. The clock is injected, so `tick(now:)` is testable with any time.
///
/// A slot is published at least once, and once unless its claimant dies (or stalls past its lease) after the
/// broker acknowledged the command and before the slot is marked done: then the next claimant publishes it again.
/// Every command it publishes carries `mv-slot: <job>@<slot>`; the consumers of scheduled commands are idempotent.
public final class CommandScheduler: Service {
    public let name = "command-scheduler"
    let jobs: [ScheduledCommand]
    let claims: SlotClaims
    let publisher: EventPublisher
    let timeZone: TimeZone
    let clock: @Sendable () -> Date
    let interval: Duration
    let claimLease: Duration
    let pause: SchedulerPause?
    let logger: Logger
    private let stopping = Atomic<Bool>(false)

    public init(
        jobs: [ScheduledCommand], claims: SlotClaims, publisher: EventPublisher, timeZone: TimeZone,
        clock: @escaping @Sendable () -> Date = { Date() }, interval: Duration = .seconds(15),
        claimLease: Duration = .seconds(30), pause: SchedulerPause? = nil, logger: Logger
    ) {
        self.jobs = jobs
        self.claims = claims
        self.publisher = publisher
        self.timeZone = timeZone
        self.clock = clock
        self.interval = interval
        self.claimLease = claimLease
        self.pause = pause
        self.logger = logger.with([LogKeys.component: "scheduler"])
    }

    /// A scheduler run as `settings` say (clock, tick interval, lease, test pause); throws when the lease is too
    /// long for the jobs' grace periods.
    public convenience init(
        jobs: [ScheduledCommand], claims: SlotClaims, publisher: EventPublisher, timeZone: TimeZone,
        settings: SchedulerSettings, logger: Logger
    ) throws {
        try settings.check(jobs: jobs)
        self.init(
            jobs: jobs, claims: claims, publisher: publisher, timeZone: timeZone,
            clock: { [clock = settings.clock] in clock.now() },
            interval: settings.interval, claimLease: settings.lease, pause: settings.pause, logger: logger)
        if settings.clock.rate != 1 {
            self.logger.warning(
                "simulated scheduler clock",
                [
                    LogKeys.rate: .double(settings.clock.rate),
                    LogKeys.now: .string(Timestamp.iso8601(settings.clock.now())),
                ])
        }
    }

    /// The header naming a scheduled command's slot, `<job>@<slot key>`.
    public static let slotHeader = "mv-slot"

    /// The slot key of an instant: UTC minute, `2026-12-01T07:00Z`.
    public static func slotKey(_ slot: Date) -> String { String(Timestamp.iso8601(slot).prefix(16)) + "Z" }

    /// One pass over every job at `now`; returns the `job@slot` keys this call published.
    @discardableResult
    public func tick(now: Date) async -> [String] {
        var published: [String] = []
        for job in jobs {
            let slot = job.schedule.latestSlot(atOrBefore: now, in: timeZone)
            guard now.timeIntervalSince(slot) < Double(job.schedule.grace.components.seconds) else { continue }
            let key = Self.slotKey(slot)
            do {
                guard try await claims.claim(job: job.job, slot: key, lease: claimLease) == .won else { continue }
                // The run of a claimed slot is the root of its own trace: the command it publishes carries it to
                // the consumer, and everything that command causes joins it.
                let sent = try await Tracing.withRootSpan(
                    "\(job.job) run",
                    attributes: [Attribute("mapvest.job", .string(job.job)), Attribute("mapvest.slot", .string(key))]
                ) { _ in try await run(job, slot: key) }
                if sent { published.append("\(job.job)@\(key)") }
            } catch {
                logger.warning(
                    "scheduler tick failed", [LogKeys.job: .string(job.job), LogKeys.error: .string("\(error)")])
            }
        }
        return published
    }

    /// Publishes a claimed slot's command, then marks the slot done (or releases it when the publish failed).
    private func run(_ job: ScheduledCommand, slot key: String) async throws -> Bool {
        await pauseIfAsked(job: job.job, slot: key, after: .claimed)
        let sent = await publisher.publish(
            topic: job.topic, key: job.key, value: job.body,
            headers: [
                KafkaHeader(MessageHeaders.command, job.command),
                KafkaHeader(Self.slotHeader, "\(job.job)@\(key)"),
            ])
        if sent {
            await pauseIfAsked(job: job.job, slot: key, after: .published)
            try await claims.complete(job: job.job, slot: key)
            logger.info("scheduled command published", [LogKeys.job: .string(job.job), LogKeys.slot: .string(key)])
        } else {
            try await claims.release(job: job.job, slot: key)
        }
        return sent
    }

    /// The test-only fault `SCHEDULER_PAUSE`: sleeps holding the slot's claim.
    private func pauseIfAsked(job: String, slot: String, after phase: SchedulerPause.Phase) async {
        guard let pause, pause.job == job, pause.phase == phase else { return }
        logger.warning(
            "scheduler paused holding a slot (SCHEDULER_PAUSE)",
            [LogKeys.job: .string(job), LogKeys.slot: .string(slot), LogKeys.after: .string(phase.rawValue)])
        try? await Task.sleep(for: pause.duration)
    }

    public func run() async throws {
        var lastPrune = ContinuousClock.now - .seconds(3600)
        while !stopping.load(ordering: .acquiring) {
            await tick(now: clock())
            if ContinuousClock.now - lastPrune > .seconds(3600) {
                lastPrune = ContinuousClock.now
                _ = try? await claims.prune(olderThan: .seconds(3 * 86_400))
            }
            let wake = ContinuousClock.now + interval
            while ContinuousClock.now < wake, !stopping.load(ordering: .acquiring) {
                try? await Task.sleep(for: min(.milliseconds(200), wake - ContinuousClock.now))
            }
        }
    }

    public func shutdown() async {
        stopping.store(true, ordering: .releasing)
    }
}
