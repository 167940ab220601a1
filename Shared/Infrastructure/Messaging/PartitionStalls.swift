/// Which partitions of one command topic have stopped answering, from what the gateway sees of hedgeable reads: a
/// first copy still unanswered at its hedge delay is evidence against its partition; a reply from a partition (its
/// `mv-partition` header) to a read first sent after the stall began is evidence for it. Pure logic (instants are
/// passed in); `Hedger` keeps one per topic.
///
/// A read whose first copy lands on a stalled partition (its replica died, or is being moved by a rebalance) is
/// hedged at once instead of after the hedge delay, and a stalled partition is never a hedge's target. The first
/// copy still goes to its own partition, so the stall ends with the first reply from it once a replica serves it
/// again. An answer to a read sent before the stall began does not count: it may have been queued before the
/// replica stopped.
package struct PartitionStalls: Sendable, Equatable {
    /// Per stalled partition: when its oldest unanswered first copy was sent.
    private var since: [Int32: ContinuousClock.Instant] = [:]

    package init() {}

    /// A first copy sent to `partition` at `sentAt` was still unanswered at its hedge delay.
    package mutating func overdue(_ partition: Int32, sentAt: ContinuousClock.Instant) {
        if let start = since[partition], start <= sentAt { return }
        since[partition] = sentAt
    }

    /// `partition` answered a read whose first copy was sent at `sentAt`.
    package mutating func answered(_ partition: Int32, sentAt: ContinuousClock.Instant) {
        guard let start = since[partition], sentAt >= start else { return }
        since[partition] = nil
    }

    /// Whether `partition` is stalled: its reads are hedged at once and no hedge goes to it.
    package func isStalled(_ partition: Int32) -> Bool {
        since[partition] != nil
    }
}
