import Kafka
import Messaging
import Synchronization
import Testing

@Suite("Idle quiet: liveness and deadline sweep rest while unused (no broker)")
struct IdleQuietTests {
    let start = ContinuousClock.now
    let tick = ProducerLifecycle.livenessTick
    let window = ProducerLifecycle.watchWindow

    /// Turns until the liveness thread stops ticking; returns the instant it did and how many probes it sent.
    func runIdle(_ lifecycle: inout ProducerLifecycle, from: ContinuousClock.Instant) -> (ContinuousClock.Instant, Int)
    {
        var at = from
        var probes = 0
        while at < from + .seconds(10) {
            at += tick
            switch lifecycle.livenessTurn(now: at) {
            case .probe(let pending):
                probes += 1
                #expect(lifecycle.probed(.answered, pending: pending, now: at) == nil)
            case .sleep(let until) where until - at > window:
                return (at, probes)
            default:
                continue
            }
        }
        return (at, probes)
    }

    @Test func anUnusedProducerStopsProbingAfterTheWatchWindow() {
        var lifecycle = ProducerLifecycle(now: start)
        let (quietAt, probes) = runIdle(&lifecycle, from: start)
        #expect(quietAt - start >= window && quietAt - start <= window + tick)
        #expect(probes >= 5)
        // Still idle later: no probe, however long the nap.
        guard case .sleep = lifecycle.livenessTurn(now: quietAt + .seconds(300)) else {
            Issue.record("an idle producer probed")
            return
        }
    }

    @Test func aSendWakesItAndAFrozenBrokerIsStillRefusedWithinTheWindow() {
        var lifecycle = ProducerLifecycle(now: start)
        let (quietAt, _) = runIdle(&lifecycle, from: start)
        let sentAt = quietAt + .seconds(120)
        #expect(lifecycle.sent(now: sentAt) == true)
        #expect(lifecycle.sent(now: sentAt) == false)  // already watching: no second wake-up
        var at = sentAt
        while at < sentAt + .seconds(2), !lifecycle.brokersDown {
            at += tick
            guard case .probe(let pending) = lifecycle.livenessTurn(now: at) else { continue }
            at += .milliseconds(400)
            _ = lifecycle.probed(.unanswered, pending: pending, now: at)
        }
        #expect(lifecycle.brokersDown)
        #expect(at - sentAt >= .seconds(1) && at - sentAt <= .milliseconds(1400))
    }

    @Test func outstandingMessagesAndDownBrokersKeepItWatching() {
        var lifecycle = ProducerLifecycle(now: start)
        #expect(lifecycle.livenessTurn(now: start + window + tick, outstanding: 3) == .probe(pending: nil))
        #expect(lifecycle.probed(.unreachable, pending: nil, now: start + window + tick) == .down)
        // Down: it keeps probing with nothing sent, to learn when the brokers answer again.
        #expect(lifecycle.livenessTurn(now: start + window * 10) == .probe(pending: nil))
        #expect(lifecycle.probed(.answered, pending: nil, now: start + window * 10) == .up)
    }

    @Test func anAllBrokersDownReportIsProbedEvenWhileIdle() {
        var lifecycle = ProducerLifecycle(now: start)
        let (quietAt, _) = runIdle(&lifecycle, from: start)
        #expect(lifecycle.allBrokersDownReported() == true)
        #expect(lifecycle.livenessTurn(now: quietAt + tick) == .probe(pending: nil))
        #expect(lifecycle.probed(.unreachable, pending: nil, now: quietAt + tick) == .down)
    }

    @Test func theSweepParksWhileNothingWaitsAndWakesOnARegistration() async throws {
        let waiters = ReplyWaiters()
        let returned = Atomic<Int>(0)
        let sweep = Task {
            await waiters.untilWaiting()
            returned.add(1, ordering: .relaxed)
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(returned.load(ordering: .relaxed) == 0)
        #expect(waiters.register("a", limit: 1, timeout: (.seconds(1), .now + .seconds(1))) == .registered)
        await sweep.value
        #expect(returned.load(ordering: .relaxed) == 1)
        // While a request waits it returns at once.
        await waiters.untilWaiting()
        waiters.resolve("a", .timedOut)
        _ = await waiters.wait("a")
        // Empty again: close (or cancellation) releases a parked sweep.
        let closing = Task { await waiters.untilWaiting() }
        try await Task.sleep(for: .milliseconds(20))
        waiters.close()
        await closing.value
        let cancelled = Task { await ReplyWaiters().untilWaiting() }
        cancelled.cancel()
        await cancelled.value
    }
}
