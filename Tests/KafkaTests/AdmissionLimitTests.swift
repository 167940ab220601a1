import Messaging
import Testing

@Suite("Admission limit (no broker)")
struct AdmissionLimitTests {
    let start = ContinuousClock.now

    @Test func admitsUpToTheCapAndRefusesTheRest() {
        var limit = AdmissionLimit(target: .milliseconds(25), minimum: 2, maximum: 3)
        let admitted = (0..<4).map { _ in limit.acquire() }
        #expect(admitted == [true, true, true, false])
        limit.release(.failed, now: start)
        let again = limit.acquire()
        #expect(again)
    }

    @Test func aStandingQueueShrinksTheCapOncePerInterval() {
        var limit = AdmissionLimit(target: .milliseconds(25), minimum: 4, maximum: 100)
        let admitted = (0..<100).filter { _ in limit.acquire() }.count
        #expect(admitted == 100)
        // A whole interval of replies queued past the target (and a timeout): one decrease when it ends.
        limit.release(.replied(queued: .milliseconds(80)), now: start)
        limit.release(.replied(queued: .milliseconds(90)), now: start + .milliseconds(50))
        #expect(limit.limit == 100)
        limit.release(.timedOut, now: start + .milliseconds(100))
        #expect(limit.limit == 80)
        limit.release(.timedOut, now: start + .milliseconds(150))
        limit.release(.timedOut, now: start + .milliseconds(200))
        #expect(limit.limit == 64)
        // Never below the minimum.
        for step in 3..<40 { limit.release(.timedOut, now: start + .milliseconds(100 * step)) }
        #expect(limit.limit == 4)
        #expect(limit.inFlight == 58)
        let refused = !limit.acquire()
        #expect(refused)
    }

    @Test func oneSlowReplyAmongFastOnesIsJitterNotAQueue() {
        var limit = AdmissionLimit(target: .milliseconds(25), minimum: 4, maximum: 100)
        for _ in 0..<100 { _ = limit.acquire() }
        for step in 0..<10 {
            let at = start + .milliseconds(40 * step)
            limit.release(.replied(queued: .milliseconds(300)), now: at)
            limit.release(.replied(queued: .milliseconds(2)), now: at + .milliseconds(1))
        }
        #expect(limit.limit == 100)
    }

    @Test func onceTheQueueIsGoneDemandRaisesTheCapAtOnce() {
        var limit = AdmissionLimit(target: .milliseconds(25), minimum: 4, maximum: 100)
        for _ in 0..<100 { _ = limit.acquire() }
        for step in 0..<20 { limit.release(.timedOut, now: start + .milliseconds(100 * step)) }
        #expect(limit.isQueueing)
        let capped = Int(limit.limit)
        let refused = (0..<capped).filter { _ in !limit.acquire() }.count
        #expect(refused > 0)
        // A window of prompt replies: no standing queue, so the next requests over the cap are admitted.
        limit.release(.replied(queued: .milliseconds(2)), now: start + .seconds(3))
        limit.release(.replied(queued: .milliseconds(2)), now: start + .seconds(3) + .milliseconds(150))
        #expect(!limit.isQueueing)
        let admitted = (0..<10).filter { _ in limit.acquire() }.count
        #expect(admitted == 10)
    }

    @Test func slowHandlersAreNotCongestionAndFastRepliesGrowTheCapBack() {
        var limit = AdmissionLimit(target: .milliseconds(25), minimum: 4, maximum: 10)
        let admitted = (0..<10).filter { _ in limit.acquire() }.count
        #expect(admitted == 10)
        limit.release(.timedOut, now: start)
        limit.release(.timedOut, now: start + .milliseconds(100))
        #expect(limit.limit == 8)
        // A reply without a reported queueing delay (or a failure before the service) says nothing.
        limit.release(.replied(queued: nil), now: start + .seconds(1))
        limit.release(.failed, now: start + .seconds(1))
        #expect(limit.limit == 8)
        for _ in 0..<6 { limit.release(.replied(queued: .milliseconds(2)), now: start + .seconds(1)) }
        #expect(limit.limit > 8)
        #expect(limit.limit <= 10)
    }

    @Test func aCapLeftLowReturnsToItsMaximumWithinASecondOfPromptReplies() {
        var limit = AdmissionLimit(target: .milliseconds(25), minimum: 4, maximum: 100)
        for _ in 0..<50 { _ = limit.acquire() }
        limit.release(.timedOut, now: start)
        limit.release(.timedOut, now: start + .milliseconds(100))
        #expect(limit.limit == 80)
        for _ in 0..<48 { limit.release(.failed, now: start) }
        // One request at a time, answered promptly every 10 ms: the first clean interval ends the queueing verdict,
        // each later one doubles the cap, up to the maximum.
        var now = start + .milliseconds(100)
        for _ in 0..<30 {
            now += .milliseconds(10)
            _ = limit.acquire()
            limit.release(.replied(queued: .milliseconds(1)), now: now)
        }
        #expect(!limit.isQueueing)
        #expect(limit.limit == 100)
    }

    /// 200 requests/s answered in 2 ms, except one 100 ms stretch a second where replies take 150 ms and report
    /// 40 ms of queueing (a busy host's jitter: up to 30 in flight). Returns the refusals per second.
    private func drive(
        _ limit: inout AdmissionLimit, from: ContinuousClock.Instant, seconds: Int
    ) -> (refused: [Int], end: ContinuousClock.Instant) {
        var pending: [(at: ContinuousClock.Instant, queued: Duration)] = []
        var refused = Array(repeating: 0, count: seconds)
        var now = from
        for tick in 0..<(seconds * 1000) {
            now += .milliseconds(1)
            let jitter = (300..<400).contains(tick % 1000)
            if tick % 5 == 0 {
                if limit.acquire() {
                    pending.append(
                        jitter
                            ? (now + .milliseconds(150), .milliseconds(40)) : (now + .milliseconds(2), .milliseconds(1))
                    )
                } else {
                    refused[tick / 1000] += 1
                }
            }
            while let due = pending.firstIndex(where: { $0.at <= now }) {
                limit.release(.replied(queued: pending.remove(at: due).queued), now: now)
            }
        }
        for left in pending { limit.release(.replied(queued: left.queued), now: now) }
        return (refused, now)
    }

    @Test func afterAnOverloadTheLoadServedFreshIsServedAgainWithNoRefusal() {
        var limit = AdmissionLimit(target: .milliseconds(25), minimum: 16, maximum: 256)
        let fresh = drive(&limit, from: start, seconds: 3)
        #expect(fresh.refused == [0, 0, 0])
        // The overload: 15 s of replies queued past the target, the cap driven to its minimum.
        var now = fresh.end
        for _ in 0..<256 { _ = limit.acquire() }
        for _ in 0..<150 {
            now += .milliseconds(100)
            limit.release(.replied(queued: .milliseconds(400)), now: now)
            _ = limit.acquire()
        }
        while limit.inFlight > 0 { limit.release(.timedOut, now: now) }
        #expect(limit.limit == 16)
        #expect(limit.isQueueing)
        // The same load, jitter included: the cap is back where it started before the first jittery stretch.
        let after = drive(&limit, from: now, seconds: 5)
        #expect(after.refused == [0, 0, 0, 0, 0])
        #expect(limit.limit == 256)
    }

    /// An overload ends (a 15 s burst drove the cap to its minimum); the service then answers promptly again. With a
    /// fake clock: a steady demand of 60 requests in flight is refused during the first 200 ms at most, then never,
    /// and the cap is back at its maximum.
    @Test func theCapRecoversWithinSecondsOfAnOverload() {
        var limit = AdmissionLimit(target: .milliseconds(25), minimum: 16, maximum: 256)
        var now = start
        // The burst: every reply queued past the target for 15 s.
        for _ in 0..<256 { _ = limit.acquire() }
        for _ in 0..<150 {
            now += .milliseconds(100)
            limit.release(.replied(queued: .milliseconds(400)), now: now)
            _ = limit.acquire()
        }
        #expect(limit.limit == 16)
        #expect(limit.isQueueing)
        // The backlog drains as timeouts and late replies.
        while limit.inFlight > 0 { limit.release(.timedOut, now: now) }
        // Then 60 requests in flight at any time, each answered promptly; count refusals per 100 ms.
        var refusedByWindow: [Int] = []
        for window in 0..<50 {
            var refused = 0
            for tick in 0..<100 {
                now += .milliseconds(1)
                while limit.inFlight < 60 {
                    guard limit.acquire() else {
                        refused += 1
                        break
                    }
                }
                if tick % 2 == 0, limit.inFlight > 0 { limit.release(.replied(queued: .milliseconds(1)), now: now) }
            }
            refusedByWindow.append(refused)
            if window == 1 { #expect(!limit.isQueueing) }
        }
        #expect(refusedByWindow.dropFirst(2).allSatisfy { $0 == 0 })
        #expect(limit.inFlight == 60)
        #expect(limit.limit == 256)
    }
}
