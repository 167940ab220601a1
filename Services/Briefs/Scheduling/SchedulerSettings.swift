import Foundation
import Runtime

/// The scheduler's clock: the wall clock, or (dev and tests only) a simulated one that starts at a given instant
/// and runs `rate` times faster than real time.
public struct SchedulerClock: Sendable {
    /// Simulated seconds per real second (1 for the wall clock).
    public let rate: Double
    let origin: Date?
    let startedAt: ContinuousClock.Instant

    /// The wall clock.
    public static let wall = SchedulerClock(rate: 1, origin: nil)

    /// A clock reading `origin` now and advancing `rate` simulated seconds per real second.
    public static func simulated(from origin: Date, rate: Double) -> SchedulerClock {
        SchedulerClock(rate: rate, origin: origin)
    }

    private init(rate: Double, origin: Date?) {
        self.rate = rate
        self.origin = origin
        startedAt = .now
    }

    public func now() -> Date {
        guard let origin else { return Date() }
        return origin.addingTimeInterval((ContinuousClock.now - startedAt).inSeconds * rate)
    }

    /// The real time a span of scheduler time takes.
    public func real(_ span: Duration) -> Duration { rate == 1 ? span : span / rate }
}

/// A test-only fault: the scheduler sleeps after `phase` of every slot of `job` it wins, so a test can kill it there.
public struct SchedulerPause: Sendable, Equatable {
    public enum Phase: String, Sendable {
        /// Between winning the claim and publishing.
        case claimed
        /// Between the broker's acknowledgement and marking the slot done.
        case published
    }

    public let job: String
    public let phase: Phase
    public let duration: Duration

    public init(job: String, phase: Phase, duration: Duration) {
        self.job = job
        self.phase = phase
        self.duration = duration
    }
}

/// How the in-house scheduler runs, from the environment: its clock, tick interval, claim lease and test pause.
///
/// - `SCHEDULER_LEASE_MS` (default 30000, 1000…600000): how long a won slot stays held before another replica may
///   take it over; with one tick it must be shorter than the shortest job's grace in real time, or a dead
///   claimant's slot would be lost.
/// - Dev only (`MAPVEST_ENV=dev`; set in production they stop start-up): `SCHEDULER_CLOCK_START` (ISO-8601 instant
///   the clock starts at), `SCHEDULER_CLOCK_RATE` (simulated seconds per real second, 1…3600; the 15 s tick
///   interval shrinks with it, the lease does not), and `SCHEDULER_PAUSE` (`<job>:<claimed|published>:<ms>`).
public struct SchedulerSettings: Sendable {
    public static let interval: Duration = .seconds(15)
    public static let defaultLease: Duration = .seconds(30)

    public let clock: SchedulerClock
    /// The real time between ticks.
    public let interval: Duration
    public let lease: Duration
    public let pause: SchedulerPause?

    public init(clock: SchedulerClock = .wall, lease: Duration = Self.defaultLease, pause: SchedulerPause? = nil) {
        self.clock = clock
        interval = clock.real(Self.interval)
        self.lease = lease
        self.pause = pause
    }

    /// Reads and checks the variables (the lease against the jobs is checked by `CommandScheduler`).
    public static func fromEnvironment(_ env: Environment) throws -> SchedulerSettings {
        let testOnly = ["SCHEDULER_CLOCK_START", "SCHEDULER_CLOCK_RATE", "SCHEDULER_PAUSE"]
        if !env.isDevelopment, let set = testOnly.first(where: { env.get($0) != nil }) {
            throw ConfigurationError(key: set, reason: "is a test setting, allowed only with MAPVEST_ENV=dev")
        }
        var clock = SchedulerClock.wall
        if let raw = env.get("SCHEDULER_CLOCK_START") {
            guard let origin = Timestamp.parse(raw) else {
                throw ConfigurationError(
                    key: "SCHEDULER_CLOCK_START", reason: "is set to \"\(raw)\", which is not an ISO-8601 instant")
            }
            let rawRate = env.get("SCHEDULER_CLOCK_RATE", default: "1")
            guard let rate = Double(rawRate), rate.isFinite, (1...3600).contains(rate) else {
                throw ConfigurationError(
                    key: "SCHEDULER_CLOCK_RATE", reason: "is set to \"\(rawRate)\", which is not a number in 1…3600")
            }
            clock = .simulated(from: origin, rate: rate)
        } else if env.get("SCHEDULER_CLOCK_RATE") != nil {
            throw ConfigurationError(key: "SCHEDULER_CLOCK_RATE", reason: "needs SCHEDULER_CLOCK_START")
        }
        let rawLease = env.get("SCHEDULER_LEASE_MS", default: "30000")
        guard let ms = Int64(rawLease), (1000...600_000).contains(ms) else {
            throw ConfigurationError(
                key: "SCHEDULER_LEASE_MS",
                reason: "is set to \"\(rawLease)\", which is not a whole number in 1000…600000")
        }
        return SchedulerSettings(clock: clock, lease: .milliseconds(ms), pause: try pause(env.get("SCHEDULER_PAUSE")))
    }

    /// Throws unless a dead claimant's slot is taken over (lease, then at most one tick) inside every job's grace.
    public func check(jobs: [ScheduledCommand]) throws {
        guard let shortest = jobs.map(\.schedule.grace).min() else { return }
        guard lease + interval < clock.real(shortest) else {
            throw ConfigurationError(
                key: "SCHEDULER_LEASE_MS",
                reason:
                    "plus one tick must be shorter than the shortest job's grace (\(clock.real(shortest)) real time), or a dead claimant's slot is lost"
            )
        }
    }

    static func pause(_ raw: String?) throws -> SchedulerPause? {
        guard let raw else { return nil }
        let parts = raw.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, !parts[0].isEmpty, let phase = SchedulerPause.Phase(rawValue: parts[1]),
            let ms = Int64(parts[2]), (0...600_000).contains(ms)
        else {
            throw ConfigurationError(
                key: "SCHEDULER_PAUSE",
                reason: "is set to \"\(raw)\", which is not <job>:<claimed|published>:<ms ≤ 600000>")
        }
        return SchedulerPause(job: parts[0], phase: phase, duration: .milliseconds(ms))
    }
}
