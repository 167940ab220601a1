/// Which partitions of one command topic have stopped answering, from what the gateway sees of hedgeable reads: a
/// first copy still unanswered at its hedge delay is evidence against its partition; a reply from a partition (its
/// `mv-partition` header) to a read first sent after the stall began is evidence for it. Pure logic (instants are
/// passed in); `Hedger` keeps one per topic.
///
/// A read whose first copy lands on a stalled partition (its replica died, or is being moved by a rebalance) is
/// hedged at once instead of after the hedge delay, and a stalled partition is never a hedge's target. The first
/// copy still goes to its own partition, so the stall ends with the first reply from it once a replica serves it
/// again. An answer to a read sent before the stall began does not count: it may have been queued before the
/// replica stopped. A stall also lapses `recheckAfter` its last overdue copy: while it holds, the hedges usually win
/// and the stalled partition's own late answers are dropped as losers, so without the lapse a partition that is
/// served again would never be seen answering. After the lapse one read probes (`hedgesAtOnce`): it waits its hedge
/// delay as any read does (answered by the partition, the stall ends), while the stall holds another `recheckAfter`
/// for the reads behind it, so one read a second pays the hedge delay, not every read sent within one.
package struct PartitionStalls: Sendable, Equatable {
    /// How long a stall holds after its last overdue first copy, or after its last probe (`hedgesAtOnce`).
    package static let recheckAfter: Duration = .seconds(1)

    private struct Stall: Sendable, Equatable {
        /// When the oldest unanswered first copy was sent.
        var since: ContinuousClock.Instant
        /// When the stall lapses unless another first copy is overdue.
        var until: ContinuousClock.Instant
    }

    private var stalls: [Int32: Stall] = [:]

    package init() {}

    /// A first copy sent to `partition` at `sentAt` was still unanswered at its hedge delay, seen at `now`.
    package mutating func overdue(_ partition: Int32, sentAt: ContinuousClock.Instant, now: ContinuousClock.Instant) {
        let since = stalls[partition].map { min($0.since, sentAt) } ?? sentAt
        stalls[partition] = Stall(since: since, until: now + Self.recheckAfter)
    }

    /// `partition` answered a read whose first copy was sent at `sentAt`.
    package mutating func answered(_ partition: Int32, sentAt: ContinuousClock.Instant) {
        guard let stall = stalls[partition], sentAt >= stall.since else { return }
        stalls[partition] = nil
    }

    /// Whether a read whose first copy landed on `partition` at `now` is hedged at once: while the partition is
    /// stalled. The first read after a stall lapsed is its probe (false), and the stall holds another
    /// `recheckAfter` for the reads behind it (true) until the probe's answer from the partition ends it.
    package mutating func hedgesAtOnce(_ partition: Int32, now: ContinuousClock.Instant) -> Bool {
        guard var stall = stalls[partition] else { return false }
        if now < stall.until { return true }
        stall.until = now + Self.recheckAfter
        stalls[partition] = stall
        return false
    }

    /// Whether `partition` is stalled at `now`: its reads are hedged at once and no hedge goes to it.
    package func isStalled(_ partition: Int32, now: ContinuousClock.Instant) -> Bool {
        stalls[partition].map { now < $0.until } ?? false
    }
}
