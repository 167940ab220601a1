import Contracts
import Foundation
import Geo
import Kafka
import Messaging
import Postgres
import Runtime
import ServiceKit

/// The movement scheduler (docs/COMPATIBILITY.md#movement), per device and never per account: the newest fix of each
/// device (from PushDispatcher's heartbeats) and its own anchors in `briefs.device_movement`. The hourly scan expands
/// into one command per device whose fix is fresh (≤ 6 h) and opted into `local_brief` or `uncaught_nearby`; a branch's
/// device moved when it has no anchor of that branch or is ≥ 2,000 m from it. The local-brief branch pushes a brief
/// for the fix to that token only and advances its anchor only once that push was published; the uncaught branch
/// (`UncaughtNearby`) advances its own on every decision. A phone and a sibling tablet of one account are two rows
/// and never share an anchor, a budget or a push.
struct Movement: Sendable {
    static let threshold = 2_000.0
    static let freshness: TimeInterval = 6 * 3600
    static let pageSize = 1000
    static let budget: Duration = .seconds(60)

    /// Version 102 keeps clear of the watchlist store's own migrations.
    static let migrations: [Migration] = [
        Migration(
            version: 102, name: "device_movement",
            sql: """
                CREATE TABLE IF NOT EXISTS briefs.device_movement (
                    token_id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL,
                    lat DOUBLE PRECISION NOT NULL,
                    lng DOUBLE PRECISION NOT NULL,
                    located_at TIMESTAMPTZ NOT NULL,
                    notifications_enabled BOOLEAN NOT NULL,
                    local_brief BOOLEAN NOT NULL,
                    uncaught_nearby BOOLEAN NOT NULL,
                    local_brief_lat DOUBLE PRECISION,
                    local_brief_lng DOUBLE PRECISION,
                    updated_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
                );
                CREATE INDEX IF NOT EXISTS device_movement_fresh_idx ON briefs.device_movement (located_at DESC)
                    WHERE local_brief AND notifications_enabled;
                """)
    ]

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

    let db: PostgresPool
    let local: LocalBriefs
    let uncaught: UncaughtNearby
    let context: ServiceContext

    /// `briefs.device.fix.v1`: keeps the newest fix per device (an older, reordered one changes nothing).
    func record(_ command: DeviceFixCommand) async throws -> Reply {
        guard command.lat.isFinite, command.lng.isFinite, abs(command.lat) <= 90, abs(command.lng) <= 180,
            let at = Timestamp.parse(command.locatedAt), !command.tokenId.isEmpty, !command.userId.isEmpty
        else { return .error(400, "valid fix required") }
        // A fix from the future (a wrong device clock) counts as now, so it can neither stay fresh nor block newer ones.
        let located = Timestamp.iso8601(min(at, Date()))
        try await db.execute(
            """
            INSERT INTO briefs.device_movement
                (token_id, user_id, lat, lng, located_at, notifications_enabled, local_brief, uncaught_nearby)
            VALUES (\(command.tokenId), \(command.userId), \(command.lat), \(command.lng), \(located)::timestamptz,
                    \(command.notificationsEnabled), \(command.localBrief), \(command.uncaughtNearby))
            ON CONFLICT (token_id) DO UPDATE SET
                user_id = EXCLUDED.user_id, lat = EXCLUDED.lat, lng = EXCLUDED.lng, located_at = EXCLUDED.located_at,
                notifications_enabled = EXCLUDED.notifications_enabled, local_brief = EXCLUDED.local_brief,
                uncaught_nearby = EXCLUDED.uncaught_nearby, updated_at = clock_timestamp()
            WHERE briefs.device_movement.located_at <= EXCLUDED.located_at
            """)
        return Reply(status: 204, body: [])
    }

    /// `briefs.movement.scan.v1`: the hourly expansion, or one device's branches (local brief, uncaught nearby),
    /// each deciding on its own anchor; their pushes go out after the reply.
    func scan(_ command: ScanMovementCommand, deadline: ContinuousClock.Instant) async throws -> Reply {
        guard let tokenId = command.tokenId else { return .json(202, ["devices": try await expand()]) }
        let rows = try await db.query(
            """
            SELECT user_id, lat, lng, local_brief, uncaught_nearby, local_brief_lat, local_brief_lng, uncaught_lat,
                   uncaught_lng, located_at > now() - make_interval(secs => \(Self.freshness)) AS fresh,
                   EXISTS (SELECT 1 FROM briefs.uncaught_pushes p WHERE p.token_id = d.token_id AND NOT p.published)
                       AS push_unpublished
            FROM briefs.device_movement d
            WHERE token_id = \(tokenId) AND (local_brief OR uncaught_nearby) AND notifications_enabled
            """)
        guard let row = rows.first, let userId = row.string("user_id"), let lat = row.double("lat"),
            let lng = row.double("lng")
        else { return .json(200, ["outcome": "not_opted_in"]) }
        guard row.bool("fresh") == true else { return .json(200, ["outcome": "stale_fix"]) }
        let device = Device(
            tokenId: tokenId, userId: userId, lat: lat, lng: lng, anchorLat: row.double("uncaught_lat"),
            anchorLng: row.double("uncaught_lng"), pushUnpublished: row.bool("push_unpublished") == true)
        async let local =
            row.bool("local_brief") == true
            ? localBrief(
                device, anchorLat: row.double("local_brief_lat"), anchorLng: row.double("local_brief_lng"),
                deadline: deadline)
            : nil
        async let uncaught =
            row.bool("uncaught_nearby") == true ? self.uncaught.decide(device, now: Date(), deadline: deadline) : nil
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
        if let anchorLat, let anchorLng,
            haversineMetres(lat1: anchorLat, lng1: anchorLng, lat2: lat, lng2: lng) < Self.threshold
        {
            return .init(outcome: "not_moved", afterReply: nil)
        }
        let (brief, written) = await local.generate(lat: lat, lng: lng, given: LocalBriefPlace(), deadline: deadline)
        guard written else { return .init(outcome: "generation_failed", afterReply: nil) }
        let body = Array(
            try JSONEncoder().encode(Self.push(userId: userId, tokenId: tokenId, lat: lat, lng: lng, brief: brief)))
        let (db, context) = (self.db, self.context)
        return .init(outcome: "pushed") {
            guard await publishRetrying(context: context, topic: Topics.pushRequests, key: userId, value: body) else {
                throw PushNotDelivered(slot: "local_brief \(tokenId)")
            }
            try await db.execute(
                """
                UPDATE briefs.device_movement SET local_brief_lat = \(lat), local_brief_lng = \(lng)
                WHERE token_id = \(tokenId)
                """)
        }
    }

    /// `local_brief` (docs/COMPATIBILITY.md#push-events): "Local economy — <place>", the first paragraph (≤ 220), to
    /// that token only, once per device per UTC day at the dispatcher.
    static func push(userId: String, tokenId: String, lat: Double, lng: Double, brief: LocalBrief) -> PushRequest {
        let day = DailyBriefs.day(Date())
        let place = brief.place.label ?? "your area"
        let first = brief.paragraphs.first.map { String($0.prefix(220)) }
        return PushRequest(
            id: "local_brief-\(day)-\(tokenId)", userIds: [userId], tokenId: tokenId, eventKey: .localBrief,
            eventKind: "local_brief", title: "Local economy — \(place)",
            body: first ?? "What's investable in \(place) right now.",
            data: ["kind": .string("local_brief"), "lat": .number(lat), "lng": .number(lng)],
            target: PushTarget(type: "home", fields: ["section": .string("local-brief")]),
            dedupe: [PushDedupe(slot: "local_brief:\(tokenId)", key: day)])
    }

    /// One `briefs.movement.scan.v1` per device with a fresh fix opted into either branch, keyed by token id, page by page.
    private func expand() async throws -> Int {
        var after = ""
        var total = 0
        let context = self.context
        while true {
            let tokens = try await db.query(
                """
                SELECT token_id FROM briefs.device_movement
                WHERE (local_brief OR uncaught_nearby) AND notifications_enabled AND token_id > \(after)
                  AND located_at > now() - make_interval(secs => \(Self.freshness))
                ORDER BY token_id LIMIT \(Self.pageSize)
                """
            ).compactMap { $0.string("token_id") }
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
