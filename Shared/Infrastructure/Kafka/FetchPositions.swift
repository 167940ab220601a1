/// Where each assigned partition's next fetch starts, as an idle group consumer last saw it: a message's offset + 1,
/// or the end an end-of-partition event reported. Pure; lets an idle probe (`IdleFetchPacer`) ask the partitions'
/// leaders for their ends (one ListOffsets each) and fetch only when one moved past it, instead of resuming and
/// fetching every partition on every probe.
package struct FetchPositions: Sendable, Equatable {
    private var next: [TopicPartition: Int64] = [:]

    package init() {}

    /// A message was polled: the partition's next fetch starts after it.
    package mutating func consumed(_ tp: TopicPartition, offset: Int64) {
        next[tp] = max(next[tp] ?? 0, offset + 1)
    }

    /// The partition's fetch reached its end at `offset` (librdkafka's end-of-partition event).
    package mutating func ended(_ tp: TopicPartition, at offset: Int64) {
        guard offset >= 0 else { return }
        next[tp] = max(next[tp] ?? 0, offset)
    }

    /// The partitions were assigned afresh or revoked: where they start is no longer known here.
    package mutating func forget(_ tps: [TopicPartition]) {
        for tp in tps { next[tp] = nil }
    }

    /// Whether nothing is left to fetch: every partition's end, as its leader reported it (nil: no answer), is at
    /// most where this consumer's next fetch starts. False when a partition's position or end is unknown.
    package func caughtUp(ends: [(tp: TopicPartition, end: Int64?)]) -> Bool {
        !ends.isEmpty
            && ends.allSatisfy { entry in
                guard let end = entry.end, let position = next[entry.tp] else { return false }
                return end <= position
            }
    }
}
