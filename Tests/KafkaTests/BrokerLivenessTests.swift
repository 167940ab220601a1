import Kafka
import Testing

@Suite("Broker liveness (no broker)")
struct BrokerLivenessTests {
    @Test func deliveriesAreProofOfLifeSoNoProbeIsSent() {
        var liveness = BrokerLiveness()
        #expect(liveness.tick(deliveries: 1) == (.wait, nil))
        #expect(liveness.tick(deliveries: 5) == (.wait, nil))
        #expect(!liveness.isDown)
    }

    @Test func aQuietTickProbesAndAFailedProbeWithoutDeliveriesMarksDown() {
        var liveness = BrokerLiveness()
        #expect(liveness.tick(deliveries: 3) == (.wait, nil))
        #expect(liveness.tick(deliveries: 3) == (.probe, nil))
        #expect(liveness.probed(succeeded: false, deliveries: 3) == .down)
        #expect(liveness.isDown)
        // Still down: no second transition.
        #expect(liveness.tick(deliveries: 3) == (.probe, nil))
        #expect(liveness.probed(succeeded: false, deliveries: 3) == nil)
    }

    @Test func aSlowProbeDuringDeliveriesIsNotAnOutage() {
        var liveness = BrokerLiveness()
        #expect(liveness.tick(deliveries: 0) == (.probe, nil))
        // The probe timed out, but deliveries arrived meanwhile: the broker is busy, not gone.
        #expect(liveness.probed(succeeded: false, deliveries: 2) == nil)
        #expect(!liveness.isDown)
    }

    @Test func aSuccessfulProbeOrALateDeliveryBringsItBack() {
        var down = BrokerLiveness()
        _ = down.tick(deliveries: 0)
        #expect(down.probed(succeeded: false, deliveries: 0) == .down)
        var viaProbe = down
        _ = viaProbe.tick(deliveries: 0)
        #expect(viaProbe.probed(succeeded: true, deliveries: 0) == .up)
        #expect(!viaProbe.isDown)
        // Messages sent before the outage are delivered once the broker resumes.
        var viaDelivery = down
        #expect(viaDelivery.tick(deliveries: 4) == (.wait, .up))
    }
}
