import Contracts
import Crypto
import Messaging
import Postgres
import Runtime

/// Saved Local Economy Briefs (docs/COMPATIBILITY.md#local-brief), owner-scoped in `briefs.saved_local_briefs`: another
/// user's id answers 404, exactly as an unknown one.
struct SavedLocalBriefs: Sendable {
    /// Versions 101+ keep clear of the watchlist store's own migrations.
    static let migrations: [Migration] = [
        Migration(
            version: 101, name: "saved_local_briefs",
            sql: """
                CREATE TABLE IF NOT EXISTS briefs.saved_local_briefs (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL,
                    label TEXT NOT NULL,
                    lat DOUBLE PRECISION NOT NULL,
                    lng DOUBLE PRECISION NOT NULL,
                    city TEXT,
                    state TEXT,
                    zip TEXT,
                    brief TEXT NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
                );
                CREATE INDEX IF NOT EXISTS saved_local_briefs_user_idx ON briefs.saved_local_briefs (user_id, created_at DESC);
                """)
    ]
    /// A user keeps at most this many; the oldest beyond it are dropped on save.
    static let perUserLimit = 200

    let db: PostgresPool

    func save(_ command: SaveLocalBriefCommand) async throws -> Reply {
        let id = "lb_" + Digest.randomHex(bytes: 10)
        try await db.execute(
            """
            INSERT INTO briefs.saved_local_briefs (id, user_id, label, lat, lng, city, state, zip, brief)
            VALUES (\(id), \(command.userId), \(command.label), \(command.lat), \(command.lng), \(command.place.city),
                    \(command.place.state), \(command.place.zip), \(command.brief))
            """)
        try await db.execute(
            """
            DELETE FROM briefs.saved_local_briefs WHERE user_id = \(command.userId) AND id NOT IN (
                SELECT id FROM briefs.saved_local_briefs WHERE user_id = \(command.userId)
                ORDER BY created_at DESC LIMIT \(Self.perUserLimit))
            """)
        return .json(200, SavedLocalBriefId(id: id))
    }

    func list(_ command: SavedLocalBriefCommand) async throws -> Reply {
        let rows = try await db.query(
            """
            SELECT id, label, lat, lng, city, state, zip, brief,
                   to_char(created_at AT TIME ZONE 'UTC', \(unescaped: WatchlistStore.iso)) AS created_iso
            FROM briefs.saved_local_briefs WHERE user_id = \(command.userId) ORDER BY created_at DESC
            """)
        let items = rows.compactMap { row -> SavedLocalBrief? in
            guard let id = row.string("id"), let label = row.string("label"), let lat = row.double("lat"),
                let lng = row.double("lng"), let brief = row.string("brief"), let created = row.string("created_iso")
            else { return nil }
            return SavedLocalBrief(
                id: id, label: label, lat: lat, lng: lng, city: row.string("city"), state: row.string("state"),
                zip: row.string("zip"), brief: brief, createdAt: created)
        }
        return .json(200, SavedLocalBriefsResponse(items: items))
    }

    func delete(_ command: SavedLocalBriefCommand) async throws -> Reply {
        guard let id = command.id else { return .error(.savedBriefNotFound) }
        let deleted = try await db.execute(
            "DELETE FROM briefs.saved_local_briefs WHERE id = \(id) AND user_id = \(command.userId)")
        return deleted == 0 ? .error(.savedBriefNotFound) : Reply(status: 204, body: [])
    }
}
