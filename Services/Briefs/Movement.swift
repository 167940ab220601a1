import BriefsCore
import Contracts
import Foundation
import Kafka
import Messaging
import Runtime
import ServiceKit

/// The movement scheduler (docs/COMPATIBILITY.md#movement), per device and never per account: the newest fix of each
/// device and its own anchors (`MovementStore`), decided by `MovementPolicy`. The hourly scan expands into one command
/// per device whose fix is fresh (≤ 6 h) and opted into `local_brief` or `uncaught_nearby`. The local-brief branch
/// pushes a brief for the fix to that token only and advances its anchor only once that push was published; the
/// uncaught branch (`UncaughtNearby`) advances its own on every decision. A phone and a sibling tablet of one account
/// never share an anchor, a budget or a push.
struct Movement: Sendable {
    /// A device with a fresh fix, as the branches need it.
    struct Device: Sendable {
        let tokenId: String
        let userId: String
        let lat: Double
        let lng: Double
        let anchorLat: Double?
        let anchorLng: Double?
        /// The device has a decided push not yet published (`Movement.scan` reads it with the device row).
        let pushUnpublished: Bool
    }

    /// A branch's outcome and the work to run after the reply (a push to publish), if any.
    struct Decision: Sendable {
        let outcome: String
        let afterReply: (@Sendable () async throws -> Void)?
    }

    let store: MovementStore
    let local: LocalBriefs
    let uncaught: UncaughtNearby
    let context: ServiceContext

    /// `briefs.device.fix.v1`: keeps the newest fix per device (an older, reordered one changes nothing).
    func record(_ command: DeviceFixCommand) async throws -> Reply {
        guard let located = MovementPolicy.acceptedFix(command, now: Date()) else {
            return .error(400, "valid fix required")
        }
        try await store.record(command, located: located)
        return Reply(status: 204, body: [])
    }

    /// `briefs.movement.scan.v1`: the hourly expansion, or one device's branches (local brief, uncaught nearby),
    /// each deciding on its own anchor; their pushes go out after the reply.
    func scan(_ command: ScanMovementCommand, deadline: ContinuousClock.Instant) async throws -> Reply {
        guard let tokenId = command.tokenId else { return .json(202, ["devices": try await expand()]) }
        guard let row = try await store.device(tokenId: tokenId) else { return .json(200, ["outcome": "not_opted_in"]) }
        guard row.fresh else { return .json(200, ["outcome": "stale_fix"]) }
        let device = Device(
            tokenId: tokenId, userId: row.userId, lat: row.lat, lng: row.lng, anchorLat: row.uncaughtLat,
            anchorLng: row.uncaughtLng, pushUnpublished: row.pushUnpublished)
        async let local =
            row.localBrief
            ? localBrief(device, anchorLat: row.localBriefLat, anchorLng: row.localBriefLng, deadline: deadline)
            : nil
        async let uncaught = row.uncaughtNearby ? self.uncaught.decide(device, now: Date(), deadline: deadline) : nil
        let decisions = (try await local, try await uncaught)
        let works = [decisions.0?.afterReply, decisions.1?.afterReply].compactMap { $0 }
        let reply = Reply.json(
            200,
            [
                "localBrief": decisions.0?.outcome ?? "not_opted_in",
                "uncaughtNearby": decisions.1?.outcome ?? "not_opted_in",
            ])
        guard !works.isEmpty else { return reply }
        // Each work is idempotent (the dispatcher's dedupe keys, anchors set to the same fix), so a retry may rerun both.
        return reply.then { for work in works { try await work() } }
    }

    /// The local-brief branch: a brief for the fix when the device moved; its push after the reply, and only then
    /// the anchor.
    private func localBrief(
        _ device: Device, anchorLat: Double?, anchorLng: Double?, deadline: ContinuousClock.Instant
    ) async throws -> Decision {
        let (tokenId, userId, lat, lng) = (device.tokenId, device.userId, device.lat, device.lng)
        guard MovementPolicy.moved(anchorLat: anchorLat, anchorLng: anchorLng, lat: lat, lng: lng) else {
            return .init(outcome: "not_moved", afterReply: nil)
        }
        let (brief, written) = await local.generate(lat: lat, lng: lng, given: LocalBriefPlace(), deadline: deadline)
        guard written else { return .init(outcome: "generation_failed", afterReply: nil) }
        let push = MovementPolicy.localBriefPush(
            userId: userId, tokenId: tokenId, lat: lat, lng: lng, brief: brief, now: Date())
        let body = Array(try JSONEncoder().encode(push))
        let (store, context) = (self.store, self.context)
        return .init(outcome: "pushed") {
            guard await publishRetrying(context: context, topic: Topics.pushRequests, key: userId, value: body) else {
                throw PushNotDelivered(slot: "local_brief \(tokenId)")
            }
            try await store.setLocalBriefAnchor(tokenId: tokenId, lat: lat, lng: lng)
        }
    }

    /// One `briefs.movement.scan.v1` per device with a fresh fix opted into either branch, keyed by token id, page by page.
    private func expand() async throws -> Int {
        var after = ""
        var total = 0
        let context = self.context
        while true {
            let tokens = try await store.freshTokens(after: after)
            guard let last = tokens.last else { return total }
            let failures = await withTaskGroup(of: Bool.self) { group in
                for token in tokens {
                    group.addTask {
                        guard let body = try? JSONEncoder().encode(ScanMovementCommand(tokenId: token)) else {
                            return false
                        }
                        return await publishRetrying(
                            context: context, topic: ServiceName.briefs.commandTopic, key: token, value: Array(body),
                            headers: [KafkaHeader(MessageHeaders.command, ScanMovementCommand.name)])
                    }
                }
                return await group.reduce(0) { $0 + ($1 ? 0 : 1) }
            }
            guard failures == 0 else { throw ScheduledRuns.ExpansionError(failed: failures) }
            total += tokens.count
            after = last
        }
    }
}
