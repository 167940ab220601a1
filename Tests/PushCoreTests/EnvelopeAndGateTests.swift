import Contracts
import Foundation
import PushCore
import Synchronization
import Testing

/// The Expo message envelope and the handoff gate: pure, no stack.
@Suite(.tags(.pure)) struct EnvelopeAndGateTests {
    @Test func envelopeShapesTargetsCategoriesAndTTL() {
        #expect(PushEnvelope.ttl(nil) == 86_400)
        #expect(PushEnvelope.ttl(10) == 300)
        #expect(PushEnvelope.ttl(10_000_000) == 604_800)
        #expect(PushEnvelope.categoryId("map") == "mapvest-map-v1")
        #expect(PushEnvelope.categoryId("company") == "mapvest-company-v1")
        #expect(PushEnvelope.categoryId("alerts") == "mapvest-settings-v1")
        let longLabel = String(repeating: "l", count: 500)
        let map = PushEnvelope.target(
            PushTarget(
                type: "map",
                fields: ["lat": .number(40), "lng": .number(-73), "label": .string(longLabel), "evil": .string("x")]))
        #expect(
            map == [
                "type": .string("map"), "lat": .number(40), "lng": .number(-73),
                "label": .string(String(repeating: "l", count: 160)),
            ])
        #expect(PushEnvelope.target(PushTarget(type: "map", fields: ["lat": .number(40)])) == ["type": .string("home")])
        #expect(PushEnvelope.target(PushTarget(type: "company")) == ["type": .string("home")])
        #expect(PushEnvelope.target(PushTarget(type: "javascript:alert(1)")) == ["type": .string("home")])
        #expect(
            PushEnvelope.target(PushTarget(type: "home", fields: ["section": .string("daily-brief")])) == [
                "type": .string("home"), "section": .string("daily-brief"),
            ])

        var request = pushRequest(
            users: ["u"], data: ["kind": .string("uncaught_nearby"), "ticker": .string("SBUX")], ttl: 60)
        request.eventKind = nil
        #expect(PushEnvelope.eventKind(request) == "uncaught_nearby")
        request.data = [:]
        #expect(PushEnvelope.eventKind(request) == "identify_done")
        request.eventKey = nil
        #expect(PushEnvelope.eventKind(request) == "mapvest_update")
        request.eventKind = String(repeating: "k", count: 100)
        #expect(PushEnvelope.eventKind(request).count == 64)

        let issued = Date(timeIntervalSince1970: 1_800_000_000)
        let message = PushEnvelope.message(
            request: pushRequest(
                users: ["u"], data: ["kind": .string("identify_done"), "brand": .string("Starbucks")], ttl: 60),
            to: "ExponentPushToken[x]", installationId: "push_1", deliveryId: "delivery_1", issuedAt: issued)
        #expect(message.ttl == 300 && message.sound == "default" && message.priority == "high")
        #expect(message.categoryId == "mapvest-company-v1")
        #expect(message.data["brand"] == .string("Starbucks"))  // legacy top-level fields stay
        guard case .object(let envelope)? = message.data["mapvest"] else {
            Issue.record("no envelope")
            return
        }
        #expect(envelope["schemaVersion"] == .number(1))
        #expect(envelope["deliveryId"] == .string("delivery_1") && envelope["installationId"] == .string("push_1"))
        #expect(envelope["issuedAt"] == .string("2027-01-15T08:00:00.000Z"))
        #expect(envelope["expiresAt"] == .string("2027-01-15T08:05:00.000Z"))
        #expect(envelope["eventKind"] == .string("identify_done"))
        #expect(envelope["target"] == .object(["type": .string("company"), "ticker": .string("SBUX")]))
    }

    @Test func handoffGateIsFIFOWithoutBarging() async throws {
        let gate = HandoffGate(permits: 1)
        try await gate.acquire()
        let order = Recorder()
        var tasks: [Task<Void, any Error>] = []
        for i in 0..<5 {
            tasks.append(
                Task {
                    try await gate.withPermit { order.items.withLock { $0.append(i) } }
                })
            while await gate.queued < i + 1 { await Task.yield() }
        }
        let cancelled = Task { try await gate.acquire() }
        while await gate.queued < 6 { await Task.yield() }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        await gate.release()
        for task in tasks { try await task.value }
        #expect(order.items.withLock { $0 } == [0, 1, 2, 3, 4])
        #expect(await gate.queued == 0)
    }
}

/// The order in which gated tasks ran.
final class Recorder: Sendable {
    let items = Mutex<[Int]>([])
}
