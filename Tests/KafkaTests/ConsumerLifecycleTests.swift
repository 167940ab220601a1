import Kafka
import Testing

@Suite("Consumer lifecycle (no broker)")
struct ConsumerLifecycleTests {
    let tp = TopicPartition(topic: "t", partition: 0)
    let other = TopicPartition(topic: "t", partition: 1)
    let now = ContinuousClock.now

    func message(_ offset: Int64, partition: Int32 = 0) -> KafkaMessage {
        KafkaMessage(topic: "t", partition: partition, offset: offset, key: nil, value: [], headers: [])
    }

    /// A started lifecycle with both partitions assigned.
    func running(maxInFlight: Int) -> ConsumerLifecycle {
        var lifecycle = ConsumerLifecycle(maxInFlight: maxInFlight)
        _ = lifecycle.start()
        _ = lifecycle.assigned([tp, other])
        return lifecycle
    }

    func admitted(_ lifecycle: inout ConsumerLifecycle, _ offsets: Range<Int64>, partition: Int32 = 0)
        -> [ConsumerLifecycle.Work]
    {
        offsets.compactMap { offset in
            if case .run(let work) = lifecycle.admit(message(offset, partition: partition)) { return work }
            return nil
        }
    }

    @Test func startsOnceAndAStopBeforeStartEndsAtOnce() {
        var lifecycle = ConsumerLifecycle(maxInFlight: 4)
        #expect(lifecycle.start() == .subscribe)
        #expect(lifecycle.start() == .alreadyStarted)
        var never = ConsumerLifecycle(maxInFlight: 4)
        let returnsAtOnce = never.requestStop()
        #expect(returnsAtOnce)
        #expect(never.start() == .stopped)
    }

    @Test func admitsUpToTheCapBuffersThenPausesAndResumes() {
        var lifecycle = running(maxInFlight: 2)
        let work = admitted(&lifecycle, 0..<4)
        #expect(work.map(\.message.offset) == [0, 1])
        #expect(lifecycle.running == 2 && lifecycle.load == 4)
        // Load reached 2 × cap: pause the assignment.
        let paused = lifecycle.tick(now: now)
        #expect(paused.cap == .pause)
        #expect(lifecycle.pausedForCap)
        // A finished handler starts the next buffered message; below the resume load the poll thread is woken.
        let first = lifecycle.finished(work[0])
        #expect(first.next?.message.offset == 2)
        #expect(first.wake)
        let resumed = lifecycle.tick(now: now + .milliseconds(200))
        #expect(resumed.cap == .resume)
        #expect(resumed.commits.map(\.1) == [1])
    }

    @Test func commitsAreBatchedPerInterval() {
        var lifecycle = running(maxInFlight: 8)
        let work = admitted(&lifecycle, 0..<2)
        _ = lifecycle.finished(work[0])
        let first = lifecycle.tick(now: now).commits
        _ = lifecycle.finished(work[1])
        let tooSoon = lifecycle.tick(now: now + .milliseconds(50)).commits
        let later = lifecycle.tick(now: now + .milliseconds(150)).commits
        #expect(first.map(\.1) == [1])
        #expect(tooSoon.isEmpty)
        #expect(later.map(\.1) == [2])
    }

    @Test func revocationDropsBufferedMessagesWaitsAndCommitsOnlyFinishedWork() {
        var lifecycle = running(maxInFlight: 1)
        let running = admitted(&lifecycle, 0..<3)
        #expect(running.count == 1)
        #expect(lifecycle.load == 3)
        let revoked: Set = [tp]
        let wait = lifecycle.revoking(revoked, lost: false)
        #expect(wait)
        #expect(lifecycle.load == 1)  // the two buffered messages were dropped
        #expect(lifecycle.outstanding(in: revoked) == 1)
        _ = lifecycle.finished(running[0])
        #expect(lifecycle.outstanding(in: revoked) == 0)
        // Offset 0 finished, 1 was dropped: the next owner starts at 1.
        #expect(lifecycle.revokeCommits(revoked, lost: false).map(\.1) == [1])
        lifecycle.revoked([tp])
        guard case .dropped = lifecycle.admit(message(3)) else {
            Issue.record("a message of a revoked partition was admitted")
            return
        }
    }

    @Test func lostPartitionsAreNeitherAwaitedNorCommitted() {
        var lifecycle = running(maxInFlight: 4)
        let work = admitted(&lifecycle, 0..<2)
        _ = lifecycle.finished(work[0])
        let wait = lifecycle.revoking([tp], lost: true)
        #expect(!wait)
        #expect(lifecycle.revokeCommits([tp], lost: true).isEmpty)
    }

    @Test func drainStopsIntakeKeepsPausedAndClosesWithTheFinalCommit() {
        var lifecycle = running(maxInFlight: 1)
        let work = admitted(&lifecycle, 0..<2)
        _ = admitted(&lifecycle, 0..<1, partition: 1)
        _ = lifecycle.requestStop()
        lifecycle.drain()
        #expect(lifecycle.load == 1)
        guard case .dropped = lifecycle.admit(message(5)) else {
            Issue.record("a message was admitted while draining")
            return
        }
        let finish = lifecycle.finished(work[0])
        #expect(finish.next == nil)  // nothing new starts while draining
        #expect(finish.wake)
        let tick = lifecycle.tick(now: now)
        #expect(tick.cap == .none)  // the assignment stays paused
        let wait = lifecycle.revoking([tp], lost: false)
        let (commits, unfinished) = lifecycle.close()
        #expect(wait)
        #expect(unfinished == 0)
        #expect(lifecycle.phase == .closed)
        // Offset 0 finished, 1 was dropped by the drain: commits reach 1 and never pass it.
        let onTp = (tick.commits + commits).filter { $0.0 == tp }.map(\.1)
        #expect(onTp.contains(1) && onTp.allSatisfy { $0 <= 1 })
        // After close, a revocation (from closing the consumer) does not wait again.
        let waitAfterClose = lifecycle.revoking([tp], lost: false)
        #expect(!waitAfterClose)
    }
}
