import Kafka
import Testing

@Suite("Broker liveness (no broker)")
struct BrokerLivenessTests {
    /// Runs a tick and, when it asks for one, a probe with the given outcome; returns the step and the transition.
    private func cycle(
        _ liveness: inout BrokerLiveness, deliveries: UInt64, probe succeeded: Bool = false, after: UInt64? = nil
    ) -> (BrokerLiveness.Step, BrokerLiveness.Transition?) {
        let (step, transition) = liveness.tick(deliveries: deliveries)
        guard step == .probe else { return (step, transition) }
        return (step, liveness.probed(succeeded: succeeded, deliveries: after ?? deliveries) ?? transition)
    }

    @Test func deliveriesAreProofOfLifeSoNoProbeIsSent() {
        var liveness = BrokerLiveness()
        let first = cycle(&liveness, deliveries: 1)
        let second = cycle(&liveness, deliveries: 5)
        #expect(first == (.wait, nil))
        #expect(second == (.wait, nil))
        #expect(!liveness.isDown)
    }

    @Test func aQuietTickProbesAndAFailedProbeWithoutDeliveriesMarksDown() {
        var liveness = BrokerLiveness()
        _ = cycle(&liveness, deliveries: 3)
        let failed = cycle(&liveness, deliveries: 3)
        #expect(failed == (.probe, .down))
        #expect(liveness.isDown)
        let stillDown = cycle(&liveness, deliveries: 3)
        #expect(stillDown == (.probe, nil))
    }

    @Test func aSlowProbeDuringDeliveriesIsNotAnOutage() {
        var liveness = BrokerLiveness()
        // The probe timed out, but deliveries arrived meanwhile: the broker is busy, not gone.
        let slow = cycle(&liveness, deliveries: 0, probe: false, after: 2)
        #expect(slow == (.probe, nil))
        #expect(!liveness.isDown)
    }

    @Test func aSuccessfulProbeOrALateDeliveryBringsItBack() {
        var down = BrokerLiveness()
        _ = cycle(&down, deliveries: 0)
        #expect(down.isDown)
        var viaProbe = down
        let probed = cycle(&viaProbe, deliveries: 0, probe: true)
        #expect(probed == (.probe, .up))
        #expect(!viaProbe.isDown)
        // Messages sent before the outage are delivered once the broker resumes.
        var viaDelivery = down
        let delivered = cycle(&viaDelivery, deliveries: 4)
        #expect(delivered == (.wait, .up))
    }
}
