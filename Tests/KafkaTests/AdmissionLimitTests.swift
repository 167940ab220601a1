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

    @Test func queueingShrinksTheCapOncePerCooldown() {
        var limit = AdmissionLimit(target: .milliseconds(25), minimum: 4, maximum: 100)
        let admitted = (0..<100).filter { _ in limit.acquire() }.count
        #expect(admitted == 100)
        limit.release(.replied(queued: .milliseconds(80)), now: start)
        #expect(limit.limit == 80)
        // Requests admitted before the decrease still report the old queue: ignored within the cooldown.
        limit.release(.replied(queued: .milliseconds(80)), now: start + .milliseconds(10))
        #expect(limit.limit == 80)
        limit.release(.timedOut, now: start + .milliseconds(60))
        #expect(limit.limit == 64)
        // Never below the minimum.
        for step in 2..<40 { limit.release(.timedOut, now: start + .milliseconds(60 * step)) }
        #expect(limit.limit == 4)
        #expect(limit.inFlight == 59)
        let refused = !limit.acquire()
        #expect(refused)
    }

    @Test func slowHandlersAreNotCongestionAndFastRepliesGrowTheCapBack() {
        var limit = AdmissionLimit(target: .milliseconds(25), minimum: 4, maximum: 10)
        let admitted = (0..<10).filter { _ in limit.acquire() }.count
        #expect(admitted == 10)
        limit.release(.timedOut, now: start)
        #expect(limit.limit == 8)
        // A reply without a reported queueing delay (or a failure before the service) says nothing.
        limit.release(.replied(queued: nil), now: start + .seconds(1))
        limit.release(.failed, now: start + .seconds(1))
        #expect(limit.limit == 8)
        for _ in 0..<7 { limit.release(.replied(queued: .milliseconds(2)), now: start + .seconds(1)) }
        #expect(limit.limit > 8)
        #expect(limit.limit <= 10)
    }

    @Test func anIdleCapDoesNotGrow() {
        var limit = AdmissionLimit(target: .milliseconds(25), minimum: 4, maximum: 100)
        for _ in 0..<50 { _ = limit.acquire() }
        limit.release(.timedOut, now: start)
        #expect(limit.limit == 80)
        // One request at a time (far below half the cap): fast replies leave the cap where it is.
        for _ in 0..<49 { limit.release(.failed, now: start) }
        for _ in 0..<20 {
            _ = limit.acquire()
            limit.release(.replied(queued: .milliseconds(1)), now: start + .seconds(1))
        }
        #expect(limit.limit == 80)
    }
}
