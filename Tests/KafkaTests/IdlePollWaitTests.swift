import Kafka
import Testing

@Suite("Idle poll wait: short only while a consumer has work (no broker)")
struct IdlePollWaitTests {
    let start = ContinuousClock.now
    let settings = IdleFetchPacer.Settings(
        hotFor: .seconds(2), firstGap: .milliseconds(10), maxGap: .seconds(1), probeLength: .milliseconds(50))

    @Test func aSettledConsumerSleepsUntilItsNextProbeABusyOneAtMostTheBusyWait() {
        var pacer = IdleFetchPacer(settings: settings, now: start)
        // Fetching for 2 s: a message ends the wait anyway, so a settled consumer waits up to the settled cap.
        #expect(pacer.pollWait(now: start, settled: true) == IdleFetchPacer.settledPollWait)
        #expect(pacer.pollWait(now: start, settled: false) == IdleFetchPacer.busyPollWait)
        // Resting with the longest gap: until just after the probe is due.
        var now = start + .seconds(2)
        _ = pacer.tick(now: now)
        while pacer.nextChange - now < .seconds(1) {
            now = pacer.nextChange
            _ = pacer.tick(now: now)
            now = pacer.nextChange
            _ = pacer.tick(now: now)
        }
        #expect(pacer.pollWait(now: now, settled: true) == IdleFetchPacer.settledPollWait)
        #expect(pacer.pollWait(now: now + .milliseconds(600), settled: true) == .milliseconds(401))
        #expect(pacer.pollWait(now: now, settled: false) == IdleFetchPacer.busyPollWait)
        // Past the change: the next turn comes at once (1 ms).
        #expect(pacer.pollWait(now: now + .seconds(2), settled: true) == .milliseconds(1))
    }

    @Test func aConsumerIsSettledOnlyWithNoHandlerAndNothingLeftToCommit() {
        let tp = TopicPartition(topic: "t", partition: 0)
        var lifecycle = ConsumerLifecycle(maxInFlight: 2)
        _ = lifecycle.start()
        _ = lifecycle.assigned([tp])
        #expect(lifecycle.isSettled)
        guard
            case .run(let work) = lifecycle.admit(
                KafkaMessage(topic: "t", partition: 0, offset: 7, key: nil, value: [], headers: []))
        else {
            Issue.record("the message was not run")
            return
        }
        #expect(!lifecycle.isSettled)  // a handler runs
        _ = lifecycle.finished(work)
        #expect(!lifecycle.isSettled)  // offset 8 waits for its commit
        #expect(lifecycle.tick(now: start).commits.map(\.1) == [8])
        #expect(lifecycle.isSettled)
        lifecycle.commitFailed(tp, offset: 8)
        #expect(!lifecycle.isSettled)  // handed out again on the next turn
    }
}
