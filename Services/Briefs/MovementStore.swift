import BriefsCore
import Contracts
import Postgres

/// The movement scheduler's table, `briefs.device_movement`: the newest fix of each device (from PushDispatcher's
/// heartbeats) with its opt-ins and the local-brief branch's anchor (the uncaught branch's anchor columns and push
/// record belong to `UncaughtNearby`). A phone and a sibling tablet of one account are two rows.
struct MovementStore: Sendable {
    static let pageSize = 1000

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

    /// An opted-in device's row as the scan reads it.
    struct Row: Sendable {
        let userId: String
        let lat: Double
        let lng: Double
        let localBrief: Bool
        let uncaughtNearby: Bool
        let localBriefLat: Double?
        let localBriefLng: Double?
        let uncaughtLat: Double?
        let uncaughtLng: Double?
        let fresh: Bool
        /// The device has a decided uncaught push not yet published.
        let pushUnpublished: Bool
    }

    let db: PostgresPool

    /// Keeps the newest fix per device (an older, reordered one changes nothing); `located` is already clamped.
    func record(_ command: DeviceFixCommand, located: String) async throws {
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
    }

    /// The device's row when it has notifications on and is opted into either branch; nil otherwise.
    func device(tokenId: String) async throws -> Row? {
        let rows = try await db.query(
            """
            SELECT user_id, lat, lng, local_brief, uncaught_nearby, local_brief_lat, local_brief_lng, uncaught_lat,
                   uncaught_lng, located_at > now() - make_interval(secs => \(MovementPolicy.freshness)) AS fresh,
                   EXISTS (SELECT 1 FROM briefs.uncaught_pushes p WHERE p.token_id = d.token_id AND NOT p.published)
                       AS push_unpublished
            FROM briefs.device_movement d
            WHERE token_id = \(tokenId) AND (local_brief OR uncaught_nearby) AND notifications_enabled
            """)
        guard let row = rows.first, let userId = row.string("user_id"), let lat = row.double("lat"),
            let lng = row.double("lng")
        else { return nil }
        return Row(
            userId: userId, lat: lat, lng: lng, localBrief: row.bool("local_brief") == true,
            uncaughtNearby: row.bool("uncaught_nearby") == true, localBriefLat: row.double("local_brief_lat"),
            localBriefLng: row.double("local_brief_lng"), uncaughtLat: row.double("uncaught_lat"),
            uncaughtLng: row.double("uncaught_lng"), fresh: row.bool("fresh") == true,
            pushUnpublished: row.bool("push_unpublished") == true)
    }

    /// A page of tokens with a fresh fix opted into either branch, in id order after `after`.
    func freshTokens(after: String) async throws -> [String] {
        try await db.query(
            """
            SELECT token_id FROM briefs.device_movement
            WHERE (local_brief OR uncaught_nearby) AND notifications_enabled AND token_id > \(after)
              AND located_at > now() - make_interval(secs => \(MovementPolicy.freshness))
            ORDER BY token_id LIMIT \(Self.pageSize)
            """
        ).compactMap { $0.string("token_id") }
    }

    /// Moves the local-brief branch's anchor to the fix that was pushed.
    func setLocalBriefAnchor(tokenId: String, lat: Double, lng: Double) async throws {
        try await db.execute(
            """
            UPDATE briefs.device_movement SET local_brief_lat = \(lat), local_brief_lng = \(lng)
            WHERE token_id = \(tokenId)
            """)
    }
}
