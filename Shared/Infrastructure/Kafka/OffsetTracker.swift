/// Per-partition bookkeeping for a consumer that handles messages concurrently and commits only what is finished.
///
/// Messages of one partition are begun in offset order; they may finish in any order. The committable offset of a
/// partition is its lowest unfinished offset, or the last finished offset + 1 when nothing is unfinished: a slow
/// handler for offset N holds the commit at N however many later offsets finish. A pure value, tested without a
/// broker; the consumer keeps it behind a lock.
package struct OffsetTracker: Sendable {
    package struct Entry: Sendable {
        package var offset: Int64
        package var done = false
        /// Will never finish here (dropped at revocation or shutdown); still blocks commits past it.
        package var abandoned = false
    }

    package struct Partition: Sendable {
        /// Identifies this assignment; finishes from an earlier assignment of the same partition are ignored.
        package var epoch: UInt64
        /// Begun offsets not yet known to be contiguous-finished, in offset order from `head`.
        package var entries: [Entry] = []
        package var head = 0
        package var lastBegun: Int64?
        /// The offset after the last contiguous finished message.
        package var finishedThrough: Int64?
        /// The offset most recently handed out for commit.
        package var committed: Int64?

        package var committable: Int64? { head < entries.count ? entries[head].offset : finishedThrough }

        /// Begun messages that may still finish (running or waiting to run).
        package var outstanding: Int {
            entries[head...].reduce(0) { $0 + ($1.done || $1.abandoned ? 0 : 1) }
        }
    }

    package private(set) var partitions: [TopicPartition: Partition] = [:]
    private var nextEpoch: UInt64 = 1

    package init() {}

    /// Starts tracking a newly assigned partition (replacing any earlier assignment of it).
    @discardableResult
    package mutating func assign(_ tp: TopicPartition) -> UInt64 {
        let epoch = nextEpoch
        nextEpoch += 1
        partitions[tp] = Partition(epoch: epoch)
        return epoch
    }

    package mutating func revoke(_ tp: TopicPartition) {
        partitions[tp] = nil
    }

    package func epoch(of tp: TopicPartition) -> UInt64? { partitions[tp]?.epoch }

    /// Records a received message. Returns the assignment epoch to finish it with, or nil when the partition is
    /// not assigned or the offset is not beyond the last begun one (a duplicate); such messages must not be handled.
    package mutating func begin(_ tp: TopicPartition, offset: Int64) -> UInt64? {
        guard var p = partitions[tp] else { return nil }
        if let last = p.lastBegun, offset <= last { return nil }
        p.entries.append(Entry(offset: offset))
        p.lastBegun = offset
        partitions[tp] = p
        return p.epoch
    }

    /// Records a finished message. Returns true when the partition's committable offset advanced.
    @discardableResult
    package mutating func finish(_ tp: TopicPartition, epoch: UInt64, offset: Int64) -> Bool {
        mark(tp, epoch: epoch, offset: offset) { $0.done = true }
    }

    /// Marks a begun message that will not be handled here; commits stay below it.
    package mutating func abandon(_ tp: TopicPartition, epoch: UInt64, offset: Int64) {
        _ = mark(tp, epoch: epoch, offset: offset) { $0.abandoned = true }
    }

    private mutating func mark(_ tp: TopicPartition, epoch: UInt64, offset: Int64, _ change: (inout Entry) -> Void)
        -> Bool
    {
        guard var p = partitions[tp], p.epoch == epoch else { return false }
        // Binary search: entries are in offset order.
        var low = p.head
        var high = p.entries.count
        while low < high {
            let mid = (low + high) / 2
            if p.entries[mid].offset < offset { low = mid + 1 } else { high = mid }
        }
        guard low < p.entries.count, p.entries[low].offset == offset else { return false }
        change(&p.entries[low])
        let before = p.committable
        while p.head < p.entries.count, p.entries[p.head].done {
            p.finishedThrough = p.entries[p.head].offset + 1
            p.head += 1
        }
        if p.head == p.entries.count {
            p.entries.removeAll(keepingCapacity: true)
            p.head = 0
        } else if p.head >= 256, p.head * 2 >= p.entries.count {
            p.entries.removeFirst(p.head)
            p.head = 0
        }
        partitions[tp] = p
        return p.committable != before
    }

    /// Offsets to commit now (committable and beyond what was last handed out), marking them handed out.
    package mutating func takeCommits(for only: Set<TopicPartition>? = nil) -> [(TopicPartition, Int64)] {
        var out: [(TopicPartition, Int64)] = []
        for (tp, p) in partitions where only?.contains(tp) ?? true {
            guard let offset = p.committable, offset > (p.committed ?? Int64.min) else { continue }
            partitions[tp]?.committed = offset
            out.append((tp, offset))
        }
        return out
    }

    /// A commit of `offset` failed: hand it out again next time (unless a later commit superseded it).
    package mutating func commitFailed(_ tp: TopicPartition, offset: Int64) {
        guard let committed = partitions[tp]?.committed, committed == offset else { return }
        partitions[tp]?.committed = nil
    }

    /// Whether a partition has a committable offset not yet handed out for commit.
    package var hasCommits: Bool {
        partitions.values.contains { p in
            guard let offset = p.committable else { return false }
            return offset > (p.committed ?? Int64.min)
        }
    }

    /// Running or waiting messages of the given partitions (all when nil).
    package func outstanding(in only: Set<TopicPartition>? = nil) -> Int {
        partitions.reduce(0) { sum, item in (only?.contains(item.key) ?? true) ? sum + item.value.outstanding : sum }
    }
}
