import Kafka
import Testing

@Suite("Fetch positions of an idle consumer (no broker)")
struct IdleFetchPositionsTests {
    let a = TopicPartition(topic: "t", partition: 0)
    let b = TopicPartition(topic: "t", partition: 1)

    /// Partitions' ends as a probe's ListOffsets reports them (nil: the leader gave none).
    func ends(_ entries: (TopicPartition, Int64?)...) -> [(tp: TopicPartition, end: Int64?)] {
        entries.map { (tp: $0.0, end: $0.1) }
    }

    @Test func caughtUpOnlyWhenEveryEndIsWhereTheFetchesStand() {
        var positions = FetchPositions()
        // Nothing known yet: a probe must fetch.
        #expect(!positions.caughtUp(ends: ends((a, 0))))
        #expect(!positions.caughtUp(ends: ends()))
        positions.consumed(a, offset: 4)
        positions.ended(b, at: 7)
        #expect(positions.caughtUp(ends: ends((a, 5), (b, 7))))
        // A message produced since, on either partition.
        #expect(!positions.caughtUp(ends: ends((a, 6), (b, 7))))
        #expect(!positions.caughtUp(ends: ends((a, 5), (b, 8))))
        // A leader that did not answer.
        #expect(!positions.caughtUp(ends: ends((a, 5), (b, nil))))
        // A partition never seen.
        #expect(!positions.caughtUp(ends: ends((a, 5), (TopicPartition(topic: "t", partition: 2), 0))))
    }

    @Test func positionsOnlyMoveForwardAndAreForgottenOnReassignment() {
        var positions = FetchPositions()
        positions.ended(a, at: 10)
        positions.consumed(a, offset: 3)  // an older message polled late does not move it back
        #expect(positions.caughtUp(ends: ends((a, 10))))
        positions.ended(a, at: -1001)  // librdkafka's logical offsets are not positions
        #expect(positions.caughtUp(ends: ends((a, 10))))
        positions.forget([a])
        #expect(!positions.caughtUp(ends: ends((a, 10))))
    }
}
