import Contracts
import Foundation
import Kafka
import Postgres
import Runtime
import Scheduling
import Synchronization
import TestSupport
import Testing

extension SystemTests {
    /// Two Briefs replicas running the in-house scheduler on a simulated clock (`SCHEDULER_CLOCK_START`, 30× real
    /// time), their commands counted on Briefs' command topic by a real consumer: every slot due in 30 simulated
    /// minutes is published exactly once, also when the replica holding a slot's claim is killed with SIGKILL
    /// between claim and publish (`SCHEDULER_PAUSE`); killed after the publish and before the slot is marked done,
    /// the survivor publishes that slot again (at least once, never lost — the consumers are idempotent).
    @Suite struct SchedulerReplicaTests {
        /// Briefs' scheduled jobs (BriefsJobs.jobs, BriefsJobs.priceAlertJobs) at the default `DAILY_BRIEF_TIME` in UTC.
        /// A job missing here is still checked for "each published slot once", just not for "every due slot".
        static let schedules: [String: Schedule] = [
            "briefs.daily": .daily(hour: 7, minute: 0), "briefs.movers": .minutes(every: 5, offset: 0),
            "briefs.movement": .minutes(every: 60, offset: 0), "briefs.price_alerts.8": .daily(hour: 8, minute: 0),
            "briefs.price_alerts.16": .daily(hour: 16, minute: 0),
            "briefs.find_evolution": .minutes(every: 15, offset: 7),
        ]
        static let rate = 30.0
        static let lease = Duration.seconds(4)
        static let pause = Duration.seconds(3)

        /// Every `job@slot` some tick in [start, end] finds due: the latest slot at that instant, inside its grace.
        static func due(from start: Date, to end: Date) -> Set<String> {
            var out: Set<String> = []
            var now = start
            while now <= end {
                for (job, schedule) in schedules {
                    let slot = schedule.latestSlot(atOrBefore: now, in: .gmt)
                    if now.timeIntervalSince(slot) < Double(schedule.grace.components.seconds) {
                        out.insert("\(job)@\(CommandScheduler.slotKey(slot))")
                    }
                }
                now = now.addingTimeInterval(15)
            }
            return out
        }

        /// A random day far from the real clock, so this run's slots are its own in `briefs.job_slots`.
        static func randomDay() -> String {
            let day = Date(timeIntervalSince1970: 1_924_992_000 + Double(Int.random(in: 0..<3000)) * 86_400)
            return String(Timestamp.iso8601(day).prefix(10))
        }

        /// Counts scheduled commands of `day` on Briefs' command topic, by their `mv-slot` header.
        final class SlotCounter: Sendable {
            final class Tally: Sendable { let counts = Mutex<[String: Int]>([:]) }
            let tally = Tally()
            let consumer: KafkaGroupConsumer
            let task: Task<Void, any Error>

            init(day: String) throws {
                let kafka = KafkaConfiguration.fromEnvironment(Environment())
                consumer = try KafkaGroupConsumer.make(
                    configuration: kafka, groupId: "test-slots-\(UInt32.random(in: 0...UInt32.max))",
                    topics: [ServiceName.briefs.commandTopic], logger: Logger(label: "t", level: .error))
                let tally = self.tally
                consumer.setHandler(maxInFlight: 16) { message in
                    guard let slot = message.header(CommandScheduler.slotHeader), slot.contains("@\(day)T") else {
                        return
                    }
                    tally.counts.withLock { $0[slot, default: 0] += 1 }
                }
                let consumer = self.consumer
                task = Task { try await consumer.run() }
            }

            var counts: [String: Int] { tally.counts.withLock { $0 } }

            func stop() async {
                await consumer.shutdown()
                _ = try? await task.value
            }
        }

        /// One run: a fresh day, the slot counter, two replicas with `SCHEDULER_PAUSE=pause`, both clocks at 06:45.
        final class Run {
            let day = randomDay()
            let counter: SlotCounter
            let db: PostgresPool
            let replicas: [ServiceProcess]
            let ready: ContinuousClock.Instant

            init(pause: String) async throws {
                counter = try SlotCounter(day: day)
                db = try await PostgresPool.make(
                    url: try TestEnvironment.require("POSTGRES_URL"), size: 1,
                    logger: Logger(label: "t", sink: .memory()))
                var env = try BriefsFakes.upstreams(BriefsFakes.Knobs()).env
                env["ENABLE_PUSH_SCHEDULER"] = "1"
                env["SCHEDULER_CLOCK_START"] = "\(day)T06:45:00.000Z"
                env["SCHEDULER_CLOCK_RATE"] = String(Int(rate))
                env["SCHEDULER_LEASE_MS"] = String(lease.components.seconds * 1000)
                env["SCHEDULER_PAUSE"] = pause
                replicas = [
                    try await ServiceProcess.start("Briefs", extra: env),
                    try await ServiceProcess.start("Briefs", extra: env),
                ]
                ready = .now
            }

            /// Waits until a replica holds `job@slot`'s live claim, not done, with the slot `published` times on the
            /// topic; kills that replica with SIGKILL and returns it.
            func killHolder(job: String, slot: String, published: Int) async throws -> ServiceProcess {
                let deadline = ContinuousClock.now + .seconds(120)
                while ContinuousClock.now < deadline {
                    let rows = try await db.query(
                        """
                        SELECT owner, done_at IS NOT NULL AS done, lease_until > clock_timestamp() AS live
                        FROM briefs.job_slots WHERE job = \(job) AND slot = \(slot)
                        """)
                    let count = counter.counts["\(job)@\(slot)", default: 0]
                    if let row = rows.first, row.bool("done") == false, row.bool("live") == true, count == published,
                        let owner = row.string("owner"),
                        let holder = replicas.first(where: { owner.hasSuffix("-\($0.process.processIdentifier)") })
                    {
                        holder.kill(signal: SIGKILL)
                        await ChildProcess.waitForExit(holder.process)
                        return holder
                    }
                    try await Task.sleep(for: .milliseconds(50))
                }
                throw Failure("no replica claimed \(job)@\(slot)")
            }

            /// Runs until every clock (each started before `ready`) is past 06:45 + `minutes`, then returns the counts
            /// of the slots up to that instant.
            func settle(minutes: Int) async throws -> [String: Int] {
                try await Task.sleep(until: ready + .seconds(Double(minutes) * 60 / rate + 3))
                try await Task.sleep(for: .seconds(2))
                let end = try #require(Timestamp.parse("\(day)T06:45:00.000Z")).addingTimeInterval(Double(minutes) * 60)
                let last = CommandScheduler.slotKey(end)
                return counter.counts.filter { $0.key.split(separator: "@").last.map { $0 <= last } ?? false }
            }

            func stop() async {
                for replica in replicas { replica.kill() }
                await counter.stop()
                await db.close()
            }
        }

        @Test func thirtySimulatedMinutesEverySlotOnceThroughAKillMidTick() async throws {
            // Whoever wins the 07:00 daily slot sleeps 3 s holding it (lease 4 s) before publishing.
            let run = try await Run(pause: "briefs.daily:claimed:\(Self.pause.components.seconds * 1000)")
            let (day, slot) = (run.day, "\(run.day)T07:00Z")
            let victim = try await run.killHolder(job: "briefs.daily", slot: slot, published: 0)
            let survivor = try #require(run.replicas.first { $0 !== victim })

            let seen = try await run.settle(minutes: 30)
            let start = try #require(Timestamp.parse("\(day)T06:45:00.000Z"))
            let expected = Self.due(from: start, to: start.addingTimeInterval(30 * 60))
            // 06:45…07:15 every 5 minutes (7), the hourly movement scan of 06:00 (inside its grace) and 07:00, the 07:00
            // daily, and find evolution at 06:37 (inside its grace), 06:52 and 07:07.
            #expect(
                expected.count == 13 && expected.contains("briefs.daily@\(slot)")
                    && expected.contains("briefs.movement@\(day)T06:00Z")
                    && expected.contains("briefs.find_evolution@\(day)T06:37Z"))
            #expect(
                Set(seen.keys.filter { Self.schedules.keys.contains(String($0.split(separator: "@")[0])) }) == expected)
            #expect(seen.allSatisfy { $0.value == 1 }, "each slot once: \(seen.filter { $0.value != 1 })")

            // The survivor took the killed replica's slot over after its lease, and finished it.
            let row = try #require(
                try await run.db.query(
                    "SELECT owner, done_at IS NOT NULL AS done FROM briefs.job_slots WHERE job = 'briefs.daily' AND slot = \(slot)"
                ).first)
            #expect(
                row.bool("done") == true
                    && row.string("owner")?.hasSuffix("-\(survivor.process.processIdentifier)") == true)
            #expect(survivor.log.contains("scheduler paused holding a slot"))
            await run.stop()
        }

        @Test func aKillAfterThePublishPublishesThatSlotAgain() async throws {
            // Whoever wins a movers slot sleeps 3 s after the broker's acknowledgement, before marking it done.
            let run = try await Run(pause: "briefs.movers:published:\(Self.pause.components.seconds * 1000)")
            let (day, slot) = (run.day, "\(run.day)T06:55Z")
            _ = try await run.killHolder(job: "briefs.movers", slot: slot, published: 1)

            let seen = try await run.settle(minutes: 15)
            // That slot twice — killed between the publish and `complete`, the survivor publishes it after the lease;
            // every other slot once.
            #expect(seen["briefs.movers@\(slot)"] == 2)
            #expect(seen.filter { $0.key != "briefs.movers@\(slot)" }.allSatisfy { $0.value == 1 })
            #expect(["06:45", "06:50", "07:00"].allSatisfy { seen["briefs.movers@\(day)T\($0)Z"] == 1 })
            await run.stop()
        }
    }
}
