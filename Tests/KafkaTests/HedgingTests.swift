import Kafka
import Messaging
import Synchronization
import Testing

@Suite("Hedge delay and hedged waiters (no broker)")
struct HedgingTests {
    let policy = HedgeDelay.Policy(
        floor: .milliseconds(50), cap: .milliseconds(400), initial: .milliseconds(250), window: 100,
        minimumSamples: 10)

    @Test func theInitialDelayHoldsUntilEnoughSamples() {
        var estimator = HedgeDelay(policy: policy)
        #expect(estimator.delay == .milliseconds(250))
        for _ in 0..<9 { estimator.observe(.milliseconds(120)) }
        #expect(estimator.delay == .milliseconds(250))
        estimator.observe(.milliseconds(120))
        #expect(estimator.delay == .milliseconds(120))
    }

    @Test func theDelayIsTheNinetyFifthPercentileOfTheWindow() {
        var estimator = HedgeDelay(policy: policy)
        // 1…100 ms, shuffled: the nearest-rank p95 is 95 ms.
        for ms in (1...100).shuffled() { estimator.observe(.milliseconds(ms)) }
        #expect(estimator.delay == .milliseconds(95))
        // The window slides: 100 newer samples of 200 ms replace them all.
        for _ in 0..<100 { estimator.observe(.milliseconds(200)) }
        #expect(estimator.delay == .milliseconds(200))
    }

    @Test func theDelayIsKeptBetweenTheFloorAndTheCap() {
        var fast = HedgeDelay(policy: policy)
        for _ in 0..<50 { fast.observe(.milliseconds(3)) }
        #expect(fast.delay == .milliseconds(50))
        var slow = HedgeDelay(policy: policy)
        for _ in 0..<50 { slow.observe(.seconds(4)) }
        #expect(slow.delay == .milliseconds(400))
    }

    @Test func aFewSlowRepliesDoNotMoveTheDelay() {
        var estimator = HedgeDelay(policy: policy)
        for index in 0..<100 { estimator.observe(index < 4 ? .seconds(3) : .milliseconds(80)) }
        #expect(estimator.delay == .milliseconds(80))
    }

    @Test func thePolicyIsSelfConsistent() {
        let odd = HedgeDelay.Policy(
            floor: .milliseconds(100), cap: .milliseconds(10), initial: .seconds(5), window: 0, minimumSamples: 9)
        #expect(odd.cap == .milliseconds(100))
        #expect(odd.initial == .milliseconds(100))
        #expect(odd.window == 1 && odd.minimumSamples == 1)
    }

    @Test func theBudgetKeepsHedgesToATenthOfRequestsAfterABurst() {
        var budget = HedgeBudget(ratio: 0.1, burst: 10)
        var hedged = 0
        // Every one of 1,000 requests wants a hedge (a whole service slow): the burst, then one in ten.
        for _ in 0..<1000 {
            budget.requested()
            if budget.spend() { hedged += 1 }
        }
        #expect(hedged >= 100 && hedged <= 110, "\(hedged)")
        // Healthy again: tokens build back up to the burst, no further.
        for _ in 0..<1000 { budget.requested() }
        var burst = 0
        while budget.spend() { burst += 1 }
        #expect(burst == 10)
    }

    func reply(_ id: String) -> KafkaMessage {
        KafkaMessage(
            topic: "r", partition: 0, offset: 0, key: nil, value: [], headers: [KafkaHeader("mv-correlation-id", id)])
    }

    @Test func aDueHedgeIsSentOnceAndTheSlowerReplyIsAHedgeLoser() async {
        let waiters = ReplyWaiters()
        let now = ContinuousClock.now
        let sent = Atomic<Int>(0)
        let hedge = ReplyWaiters.Hedge(at: now + .milliseconds(100)) { sent.add(1, ordering: .relaxed) }
        #expect(waiters.register("a", limit: 4, timeout: (.seconds(5), now + .seconds(5)), hedge: hedge) == .registered)
        waiters.expire(now: now + .milliseconds(99))
        #expect(sent.load(ordering: .relaxed) == 0)
        waiters.expire(now: now + .milliseconds(100))
        waiters.expire(now: now + .milliseconds(110))
        #expect(sent.load(ordering: .relaxed) == 1)
        #expect(waiters.deliver(reply("a"), correlationId: "a") == nil)
        guard case .reply = await waiters.wait("a") else {
            Issue.record("expected the first reply")
            return
        }
        #expect(waiters.deliver(reply("a"), correlationId: "a") == .hedgeLoser)
    }

    @Test func anAnsweredRequestIsNeverHedged() async {
        let waiters = ReplyWaiters()
        let now = ContinuousClock.now
        let sent = Atomic<Int>(0)
        let hedge = ReplyWaiters.Hedge(at: now + .milliseconds(100)) { sent.add(1, ordering: .relaxed) }
        _ = waiters.register("a", limit: 4, hedge: hedge)
        _ = waiters.register("b", limit: 4, hedge: hedge)
        #expect(waiters.deliver(reply("a"), correlationId: "a") == nil)
        waiters.unregister("b")
        waiters.expire(now: now + .seconds(1))
        #expect(sent.load(ordering: .relaxed) == 0)
        _ = await waiters.wait("a")
        // Without a hedge a second reply is a plain duplicate.
        #expect(waiters.deliver(reply("a"), correlationId: "a") == .duplicate)
    }

    @Test func aHedgeMadeDueNowGoesWithTheNextSweep() {
        let waiters = ReplyWaiters()
        let now = ContinuousClock.now
        let sent = Atomic<Int>(0)
        let hedge = ReplyWaiters.Hedge(at: now + .milliseconds(300)) { sent.add(1, ordering: .relaxed) }
        _ = waiters.register("a", limit: 4, hedge: hedge)
        waiters.hedgeNow("a", now: now + .milliseconds(5))
        waiters.expire(now: now + .milliseconds(10))
        #expect(sent.load(ordering: .relaxed) == 1)
        // Unknown or already sent: nothing more goes.
        waiters.hedgeNow("a", now: now + .milliseconds(20))
        waiters.hedgeNow("b", now: now + .milliseconds(20))
        waiters.expire(now: now + .seconds(1))
        #expect(sent.load(ordering: .relaxed) == 1)
    }
}

@Suite("Partition stalls (no broker)")
struct PartitionStallsTests {
    let start = ContinuousClock.now

    func at(_ ms: Int) -> ContinuousClock.Instant { start + .milliseconds(ms) }

    @Test func anOverdueFirstCopyStallsItsPartitionAlone() {
        var stalls = PartitionStalls()
        #expect(!stalls.isStalled(2, now: at(0)))
        stalls.overdue(2, sentAt: at(0), now: at(50))
        #expect(stalls.isStalled(2, now: at(60)))
        #expect(!stalls.isStalled(3, now: at(60)))
    }

    @Test func onlyAnAnswerToAReadSentSinceTheStallEndsIt() {
        var stalls = PartitionStalls()
        stalls.overdue(0, sentAt: at(100), now: at(150))
        // Sent before the stall began (queued before the replica stopped): proves nothing about now.
        stalls.answered(0, sentAt: at(90))
        #expect(stalls.isStalled(0, now: at(620)))
        // Another partition's answer proves nothing about this one.
        stalls.answered(1, sentAt: at(600))
        #expect(stalls.isStalled(0, now: at(620)))
        // A read sent later, answered from this partition: it is served again.
        stalls.answered(0, sentAt: at(600))
        #expect(!stalls.isStalled(0, now: at(620)))
    }

    @Test func theStallDatesFromItsOldestOverdueCopy() {
        var stalls = PartitionStalls()
        stalls.overdue(0, sentAt: at(200), now: at(250))
        stalls.overdue(0, sentAt: at(100), now: at(260))
        stalls.overdue(0, sentAt: at(300), now: at(350))
        stalls.answered(0, sentAt: at(99))
        #expect(stalls.isStalled(0, now: at(400)))
        stalls.answered(0, sentAt: at(100))
        #expect(!stalls.isStalled(0, now: at(400)))
    }

    /// Hedges win while a stall holds, so the stalled partition's own answers arrive as dropped losers: the stall
    /// lapses a second after its last overdue copy, and the partition's next read decides (renewed when overdue).
    @Test func aStallLapsesWithoutNewEvidenceAndIsRenewedByIt() {
        var stalls = PartitionStalls()
        stalls.overdue(1, sentAt: at(0), now: at(100))
        #expect(stalls.isStalled(1, now: at(1_099)))
        #expect(!stalls.isStalled(1, now: at(1_100)))
        stalls.overdue(1, sentAt: at(1_200), now: at(1_300))
        #expect(stalls.isStalled(1, now: at(2_000)))
        // The renewal keeps the oldest unanswered copy: an answer to a read sent in between ends it.
        stalls.answered(1, sentAt: at(50))
        #expect(!stalls.isStalled(1, now: at(2_000)))
    }

    /// After a lapse one read probes the partition (waits its hedge delay); the reads behind it are hedged at once for
    /// another `recheckAfter`, and the probe's answer from the partition ends the stall.
    @Test func afterALapseOneReadProbesAndTheReadsBehindItAreHedgedAtOnce() {
        var stalls = PartitionStalls()
        // Whether reads landing on partition 3 at these instants are hedged at once, asked in order.
        func hedgedAtOnce(_ instants: [Int]) -> [Bool] { instants.map { stalls.hedgesAtOnce(3, now: at($0)) } }
        let hedged1 = hedgedAtOnce([0])
        #expect(hedged1 == [false])
        stalls.overdue(3, sentAt: at(0), now: at(100))
        let hedged2 = hedgedAtOnce([200, 1_099])
        #expect(hedged2 == [true, true])
        // Lapsed: this read is the probe; the ones behind it, within the next second, are hedged at once.
        let hedged3 = hedgedAtOnce([1_150])
        #expect(hedged3 == [false])
        #expect(stalls.isStalled(3, now: at(1_160)))
        let hedged4 = hedgedAtOnce([1_160, 2_149])
        #expect(hedged4 == [true, true])
        // Its probe unanswered by the partition, the next read a second later probes again.
        let hedged5 = hedgedAtOnce([2_150, 2_200])
        #expect(hedged5 == [false, true])
        // The partition answers the probe: the stall ends.
        stalls.answered(3, sentAt: at(2_150))
        #expect(!stalls.isStalled(3, now: at(2_210)))
        let hedged6 = hedgedAtOnce([2_210, 2_220])
        #expect(hedged6 == [false, false])
    }
}
