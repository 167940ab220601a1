import Kafka
import Testing

@Suite("Broker liveness (no broker, fake clock)")
struct BrokerLivenessTests {
    let start = ContinuousClock.now
    let tick = ProducerLifecycle.livenessTick

    /// Runs a tick at `at` and, when it asks for one, a probe with the given outcome ending at the same instant;
    /// returns the step and the transition.
    private func cycle(
        _ liveness: inout BrokerLiveness, at: Duration, deliveries: UInt64, probe: BrokerLiveness.Probe = .unanswered,
        after: UInt64? = nil
    ) -> (BrokerLiveness.Step, BrokerLiveness.Transition?) {
        let now = start + at
        let (step, transition) = liveness.tick(deliveries: deliveries, now: now)
        guard step == .probe else { return (step, transition) }
        return (step, liveness.probed(probe, deliveries: after ?? deliveries, now: now) ?? transition)
    }

    @Test func deliveriesAreProofOfLifeSoNoProbeIsSent() {
        var liveness = BrokerLiveness(now: start)
        let first = cycle(&liveness, at: tick, deliveries: 1)
        let second = cycle(&liveness, at: tick * 2, deliveries: 5)
        #expect(first == (.wait, nil))
        #expect(second == (.wait, nil))
        #expect(!liveness.isDown)
    }

    @Test func oneUnansweredProbeIsNotAnOutage() {
        var liveness = BrokerLiveness(now: start)
        _ = cycle(&liveness, at: tick, deliveries: 3)
        // A probe missed much later (a starved process resuming after 5 s) is one piece of evidence, not enough.
        let missed = cycle(&liveness, at: .seconds(5), deliveries: 3)
        #expect(missed == (.probe, nil))
        #expect(!liveness.isDown)
    }

    @Test func unansweredProbesOverTheSilenceWindowMarkDown() {
        var liveness = BrokerLiveness(now: start)
        _ = cycle(&liveness, at: .milliseconds(200), deliveries: 3, probe: .answered)
        // Two unanswered probes, but only 0.8 s of silence: not yet.
        #expect(cycle(&liveness, at: .milliseconds(600), deliveries: 3) == (.probe, nil))
        #expect(cycle(&liveness, at: .milliseconds(1000), deliveries: 3) == (.probe, nil))
        #expect(!liveness.isDown)
        // A third at 1.2 s: a second without proof of life, probes missed in a row.
        #expect(cycle(&liveness, at: .milliseconds(1200), deliveries: 3) == (.probe, .down))
        #expect(liveness.isDown)
        #expect(cycle(&liveness, at: .milliseconds(1600), deliveries: 3) == (.probe, nil))
    }

    @Test func anAnsweredProbeInBetweenRestartsTheWindow() {
        var liveness = BrokerLiveness(now: start)
        // Under CPU starvation probes are missed now and then, with answers in between: never down.
        var at = Duration.zero
        for round in 0..<20 {
            at += .milliseconds(600)
            let outcome: BrokerLiveness.Probe = round.isMultiple(of: 2) ? .unanswered : .answered
            #expect(cycle(&liveness, at: at, deliveries: 0, probe: outcome) == (.probe, nil))
        }
        #expect(!liveness.isDown)
    }

    @Test func librdkafkasOwnAllBrokersDownIsCertainAtOnce() {
        var liveness = BrokerLiveness(now: start)
        let refused = cycle(&liveness, at: tick, deliveries: 0, probe: .unreachable)
        #expect(refused == (.probe, .down))
        #expect(liveness.isDown)
    }

    @Test func aSlowProbeDuringDeliveriesIsNotAnOutage() {
        var liveness = BrokerLiveness(now: start)
        // Probes timed out, but deliveries arrived meanwhile: the broker is busy, not gone.
        _ = cycle(&liveness, at: .seconds(1), deliveries: 0, after: 2)
        let slow = cycle(&liveness, at: .seconds(3), deliveries: 2, after: 4)
        #expect(slow == (.probe, nil))
        #expect(!liveness.isDown)
    }

    @Test func aCustomPolicyNeedsItsOwnCountOfMisses() {
        var liveness = BrokerLiveness(now: start, policy: .init(failedProbes: 3, silence: .zero))
        #expect(cycle(&liveness, at: tick, deliveries: 0) == (.probe, nil))
        #expect(cycle(&liveness, at: tick * 2, deliveries: 0) == (.probe, nil))
        #expect(cycle(&liveness, at: tick * 3, deliveries: 0) == (.probe, .down))
    }

    @Test func aSuccessfulProbeOrALateDeliveryBringsItBack() {
        var down = BrokerLiveness(now: start)
        _ = cycle(&down, at: tick, deliveries: 0, probe: .unreachable)
        #expect(down.isDown)
        var viaProbe = down
        let probed = cycle(&viaProbe, at: tick * 2, deliveries: 0, probe: .answered)
        #expect(probed == (.probe, .up))
        #expect(!viaProbe.isDown)
        // Messages sent before the outage are delivered once the broker resumes.
        var viaDelivery = down
        let delivered = cycle(&viaDelivery, at: tick * 2, deliveries: 4)
        #expect(delivered == (.wait, .up))
        // Back up, the window starts afresh: one unanswered probe is not enough again.
        #expect(cycle(&viaDelivery, at: .seconds(9), deliveries: 4) == (.probe, nil))
        #expect(!viaDelivery.isDown)
    }
}
