/// When an idle consumer fetches, for a broker that does not wake a waiting fetch on new data (the dev broker):
/// continuously while messages flow, in short probes with growing gaps once none came for a while. Pure; the
/// consumer's poll thread asks it what to do on every turn and pauses or resumes its assignment accordingly.
///
/// - Fetching: the assignment is resumed (librdkafka fetches back to back, each fetch waiting `fetch.wait.max.ms`).
///   A message, or a nudge (a reply is expected), keeps or puts the consumer here for `hotFor`.
/// - Resting: the assignment is paused, so nothing is fetched and the broker does no work for this consumer.
/// - Probing: resumed after each gap until every partition's fetch came back (`probeAnswered`: the consumer counts
///   librdkafka's end-of-partition events, emitted again after each resume) or `probeLength` passed; a message found
///   returns to fetching, none pauses again with the gap doubled, from `firstGap` up to `maxGap`.
///
/// So the idle cost falls from one fetch per `fetch.wait.max.ms` to one per `maxGap`, traffic flows as before, and
/// the first message after a long silence waits at most `maxGap` (plus a fetch).
package struct IdleFetchPacer: Sendable, Equatable {
    /// The pacing constants.
    package struct Settings: Sendable, Equatable {
        /// The default longest gap of consumers off a request's path (`FetchUrgency.background`).
        package static let backgroundMaxGap: Duration = .seconds(1)

        package var hotFor: Duration
        package var firstGap: Duration
        package var maxGap: Duration
        package var probeLength: Duration

        package init(
            hotFor: Duration = .seconds(2), firstGap: Duration = .milliseconds(10),
            maxGap: Duration = .milliseconds(100),
            probeLength: Duration = .milliseconds(50)
        ) {
            self.hotFor = hotFor
            self.firstGap = min(firstGap, maxGap)
            self.maxGap = maxGap
            self.probeLength = probeLength
        }
    }

    package enum Phase: Sendable, Equatable {
        case fetching(until: ContinuousClock.Instant)
        case resting(until: ContinuousClock.Instant, gap: Duration)
        case probing(until: ContinuousClock.Instant, gap: Duration)
    }

    /// What the poll thread must do to the assignment.
    package enum Action: Sendable, Equatable { case none, pause, resume }

    package let settings: Settings
    package private(set) var phase: Phase

    /// Starts fetching (a new consumer has a backlog to read, or none to find out about).
    package init(settings: Settings, now: ContinuousClock.Instant) {
        self.settings = settings
        phase = .fetching(until: now + settings.hotFor)
    }

    /// Whether the assignment should be fetched now.
    package var isFetching: Bool {
        if case .resting = phase { return false }
        return true
    }

    /// A message arrived or one is expected soon: fetch continuously for `hotFor`.
    package mutating func activity(now: ContinuousClock.Instant) -> Action {
        let wasFetching = isFetching
        phase = .fetching(until: now + settings.hotFor)
        return wasFetching ? .none : .resume
    }

    /// Every partition's probe fetch came back empty: rest again without waiting for the end of `probeLength`.
    package mutating func probeAnswered(now: ContinuousClock.Instant) -> Action {
        guard case .probing(_, let gap) = phase else { return .none }
        rest(now: now, after: gap)
        return .pause
    }

    /// Whether a probe is under way (end-of-partition events then count as its answers).
    package var isProbing: Bool {
        if case .probing = phase { return true }
        return false
    }

    private mutating func rest(now: ContinuousClock.Instant, after gap: Duration) {
        let next = min(gap * 2, settings.maxGap)
        phase = .resting(until: now + next, gap: next)
    }

    /// Moves on with time; call on every turn of the poll loop.
    package mutating func tick(now: ContinuousClock.Instant) -> Action {
        switch phase {
        case .fetching(let until):
            guard now >= until else { return .none }
            phase = .resting(until: now + settings.firstGap, gap: settings.firstGap)
            return .pause
        case .resting(let until, let gap):
            guard now >= until else { return .none }
            phase = .probing(until: now + settings.probeLength, gap: gap)
            return .resume
        case .probing(let until, let gap):
            guard now >= until else { return .none }
            rest(now: now, after: gap)
            return .pause
        }
    }

    /// When the next `tick` has something to do: the poll thread blocks no longer than this.
    package var nextChange: ContinuousClock.Instant {
        switch phase {
        case .fetching(let until), .resting(let until, _), .probing(let until, _): until
        }
    }

    /// The longest poll wait while handlers run or finished offsets wait for their commit (served on the turns).
    package static let busyPollWait: Duration = .milliseconds(100)
    /// The longest poll wait of a settled consumer: a message, a rebalance or a stop ends the wait anyway.
    package static let settledPollWait: Duration = .seconds(1)

    /// How long the poll thread may block: until just after the next change, and at most `busyPollWait` unless the
    /// consumer is `settled` (then `settledPollWait`), so a consumer resting between seldom probes is not woken ten
    /// times a second for nothing.
    package func pollWait(now: ContinuousClock.Instant, settled: Bool) -> Duration {
        let untilChange = max(.zero, nextChange - now) + .milliseconds(1)
        return min(untilChange, settled ? Self.settledPollWait : Self.busyPollWait)
    }
}
