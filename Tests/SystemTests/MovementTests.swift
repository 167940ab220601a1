import Contracts
import Foundation
import HTTPClient
import Kafka
import Postgres
import Runtime
import Synchronization
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// The movement scheduler's local-brief branch end to end (docs/COMPATIBILITY.md#movement): heartbeats through the
    /// gateway to PushDispatcher, which hands each fix to Briefs; the hourly scan as an outside producer publishes it.
    /// Per device: a phone that moved 2.5 km gets one `local_brief` push for its token and its sibling tablet none;
    /// 1.5 km and a 7 h old fix do nothing; a failed generation leaves the anchor where it was.
    @Suite struct MovementTests {
        @Test func perDeviceMovesStaleFixesAndTheAnchorAfterSuccess() async throws {
            let knobs = LocalBriefFakes.Knobs()
            let fakes = try LocalBriefFakes.upstreams(knobs)
            let briefs = try await ServiceProcess.start("Briefs", extra: fakes.env)
            let push = try await Devices.dispatcher(schema: "push_move")
            let gateway = try await GatewayProcess.start(instance: "test-move-\(UInt16.random(in: 0...9999))")
            defer {
                briefs.kill()
                push.kill()
                gateway.process.kill()
            }
            let (auth, userId) = try await BriefsFakes.signIn(gateway)
            let pushes = try BriefsFakes.PushCollector { $0 == userId }
            try await BriefsFakes.waitForBriefs(gateway, auth: auth)
            let (db, producer) = try await Devices.briefsStoreAndProducer()

            func register() async throws -> String { try await Devices.register(gateway, auth: auth) }
            /// A heartbeat, and the wait until Briefs holds that fix.
            func heartbeat(_ tokenId: String, lat: Double, lng: Double, age: TimeInterval = 0) async throws {
                let at = Timestamp.iso8601(Date().addingTimeInterval(-age))
                let prefs =
                    "{\"notifications_enabled\":true,\"local_brief\":true,\"last_lat\":\(lat),\"last_lng\":\(lng),\"last_location_at\":\"\(at)\"}"
                let written = try await SystemClient.send(
                    gateway, "POST", "/v1/push/prefs", json: "{\"tokenId\":\"\(tokenId)\",\"prefs\":\(prefs)}",
                    headers: auth)
                #expect(written.status == 200)
                let deadline = ContinuousClock.now + .seconds(20)
                while ContinuousClock.now < deadline {
                    let rows = try await db.query(
                        "SELECT 1 FROM briefs.device_movement WHERE token_id = \(tokenId) AND lat = \(lat) AND lng = \(lng)"
                    )
                    if !rows.isEmpty { return }
                    try await Task.sleep(for: .milliseconds(200))
                }
                throw Failure("fix for \(tokenId) not recorded")
            }
            func scan() async throws {
                _ = try await producer.send(
                    topic: ServiceName.briefs.commandTopic, key: Array("all".utf8), value: Array("{}".utf8),
                    headers: [KafkaHeader(MessageHeaders.command, ScanMovementCommand.name)])
            }
            func waitForPushes(_ count: Int) async throws {
                let deadline = ContinuousClock.now + .seconds(30)
                while pushes.all.count < count, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(200))
                }
                try await Task.sleep(for: .seconds(1))
            }
            func anchor(_ tokenId: String) async throws -> Double? {
                try await db.query("SELECT local_brief_lat FROM briefs.device_movement WHERE token_id = \(tokenId)")
                    .first?.double("local_brief_lat")
            }

            let (phone, tablet) = (try await register(), try await register())
            let lat = Double(Int.random(in: 10_000...50_000)) / 1000
            let lng = -100.0
            // 0.0225° of latitude ≈ 2.5 km; 0.0135° ≈ 1.5 km.
            try await heartbeat(phone, lat: lat, lng: lng)
            try await heartbeat(tablet, lat: lat, lng: lng)

            // No anchor yet: each device gets its own push, to its own token.
            try await scan()
            try await waitForPushes(2)
            #expect(pushes.all.count == 2 && Set(pushes.all.compactMap(\.tokenId)) == [phone, tablet])
            let firstPush = try #require(pushes.all.first)
            #expect(firstPush.title == "Local economy — Mission Dolores" && firstPush.eventKey == .localBrief)
            #expect(firstPush.body.hasPrefix("Mission Dolores mixes") && firstPush.body.count <= 220)
            #expect(firstPush.dedupe.first?.slot == "local_brief:\(firstPush.tokenId ?? "")")

            // The phone moves 2.5 km; the tablet stays: one push, the phone's.
            try await heartbeat(phone, lat: lat + 0.0225, lng: lng)
            try await scan()
            try await waitForPushes(3)
            #expect(pushes.all.count == 3 && pushes.all.last?.tokenId == phone)
            let (phoneAnchor, tabletAnchor) = (try await anchor(phone), try await anchor(tablet))
            #expect(phoneAnchor == lat + 0.0225 && tabletAnchor == lat)

            // 1.5 km for the phone, and a third device whose only fix is 7 h old (no anchor): nothing.
            let stale = try await register()
            try await heartbeat(phone, lat: lat + 0.0225 + 0.0135, lng: lng)
            try await heartbeat(stale, lat: lat + 0.045, lng: lng, age: 7 * 3600)
            try await scan()
            try await Task.sleep(for: .seconds(4))
            #expect(pushes.all.count == 3)

            // The model failing: no push, the anchor stays; once it answers, the push and the anchor follow.
            knobs.modelFails.withLock { $0 = true }
            let calls = fakes.openRouter.requests.count
            try await heartbeat(phone, lat: lat + 0.0675, lng: lng)
            try await scan()
            let deadline = ContinuousClock.now + .seconds(30)
            while fakes.openRouter.requests.count <= calls, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
            }
            try await Task.sleep(for: .seconds(2))
            let kept = try await anchor(phone)
            #expect(pushes.all.count == 3 && kept == lat + 0.0225)
            knobs.modelFails.withLock { $0 = false }
            try await scan()
            try await waitForPushes(4)
            let advanced = try await anchor(phone)
            #expect(pushes.all.count == 4 && pushes.all.last?.tokenId == phone && advanced == lat + 0.0675)
            await pushes.stop()
            await db.close()
        }
    }
}
