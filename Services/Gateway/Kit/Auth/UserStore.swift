import Crypto
import Foundation
import Postgres

/// A user as the API shows it (docs/COMPATIBILITY.md#tokens).
struct User: Codable, Sendable, Equatable {
    var id: String
    var email: String
    var createdAt: String
    var scopes: [String]
    var handle: String?
}

/// The gateway's users and quota usage, in the `gateway` schema.
struct UserStore: Sendable {
    let db: PostgresPool
    /// `ADMIN_EMAILS`, lowercased.
    let adminEmails: Set<String>
    /// `FREE_FOREVER_EMAIL_DOMAINS`: an internal allow-rule (e.g. `mapvest.app`) for unlimited identifies.
    let freeForeverDomains: Set<String>

    static let migrations: [Migration] = [
        Migration(
            version: 1, name: "users and usage",
            sql: """
                CREATE TABLE IF NOT EXISTS gateway.users (
                    id TEXT PRIMARY KEY,
                    email TEXT NOT NULL UNIQUE,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                    scopes TEXT[] NOT NULL DEFAULT '{user}',
                    plan TEXT NOT NULL DEFAULT 'none',
                    free_forever BOOLEAN NOT NULL DEFAULT false,
                    free_forever_reason TEXT,
                    handle TEXT
                );
                CREATE TABLE IF NOT EXISTS gateway.usage_events (
                    id BIGSERIAL PRIMARY KEY,
                    device_id TEXT,
                    user_id TEXT REFERENCES gateway.users(id) ON DELETE SET NULL,
                    kind TEXT NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
                );
                CREATE INDEX IF NOT EXISTS usage_events_user_idx ON gateway.usage_events (user_id, kind);
                CREATE INDEX IF NOT EXISTS usage_events_device_idx ON gateway.usage_events (device_id, kind);
                CREATE INDEX IF NOT EXISTS usage_events_created_idx ON gateway.usage_events (created_at);
                """)
    ]

    private static func user(_ row: PostgresRow) -> User? {
        guard let id = row.string("id"), let email = row.string("email") else { return nil }
        return User(
            id: id, email: email, createdAt: row.string("created_at_iso") ?? "",
            scopes: row.string("scopes_csv")?.split(separator: ",").map(String.init) ?? ["user"],
            handle: row.string("handle"))
    }

    private static let columns =
        "id, email, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') AS created_at_iso, array_to_string(scopes, ',') AS scopes_csv, handle"

    /// The handles of these users; an id without a user or a handle is absent.
    func handles(ids: [String]) async throws -> [String: String] {
        let rows = try await db.query("SELECT id, handle FROM gateway.users WHERE id = ANY(\(ids)::text[])")
        var handles: [String: String] = [:]
        for row in rows {
            if let id = row.string("id"), let handle = row.string("handle") { handles[id] = handle }
        }
        return handles
    }

    func find(id: String) async throws -> User? {
        try await db.query("SELECT \(unescaped: Self.columns) FROM gateway.users WHERE id = \(id)").first
            .flatMap(Self.user)
    }

    /// The user with this (lowercased) email, created on first sign-in.
    func findOrCreate(email: String) async throws -> User {
        let email = email.lowercased()
        let scopes = adminEmails.contains(email) ? "{user,admin}" : "{user}"
        let id = "usr_" + Digest.randomHex(bytes: 16)
        let handle = "finder-" + Digest.randomHex(bytes: 4)
        let rows = try await db.query(
            """
            INSERT INTO gateway.users (id, email, scopes, handle) VALUES (\(id), \(email), \(scopes)::text[], \(handle))
            ON CONFLICT (email) DO UPDATE SET email = EXCLUDED.email
            RETURNING \(unescaped: Self.columns)
            """)
        guard let user = rows.first.flatMap(Self.user) else { throw StoreError.missingRow }
        return user
    }

    /// Identifies used so far by a user, or by an anonymous device.
    func usage(userId: String?, deviceId: String?) async throws -> Int {
        let rows: [PostgresRow]
        if let userId {
            rows = try await db.query(
                "SELECT count(*) AS n FROM gateway.usage_events WHERE kind = 'identify' AND user_id = \(userId)")
        } else if let deviceId {
            rows = try await db.query(
                "SELECT count(*) AS n FROM gateway.usage_events WHERE kind = 'identify' AND user_id IS NULL AND device_id = \(deviceId)"
            )
        } else {
            return 0
        }
        return rows.first?.int("n") ?? 0
    }

    enum StoreError: Error { case missingRow }
}

extension UserStore {
    /// Re-creates a user that a valid session names but the store lost, from the token's `email` claim.
    func restore(id: String, email: String) async throws -> User? {
        let email = email.lowercased()
        let scopes = adminEmails.contains(email) ? "{user,admin}" : "{user}"
        _ = try await db.execute(
            """
            INSERT INTO gateway.users (id, email, scopes) VALUES (\(id), \(email), \(scopes)::text[])
            ON CONFLICT DO NOTHING
            """)
        return try await find(id: id)
    }
}

/// A user's entitlement as the admin routes show it.
struct Entitlement: Codable, Sendable, Equatable {
    /// Unlimited identifies by a manual admin grant.
    var freeForever: Bool
    var reason: String?
    /// `none` or `subscribed`.
    var plan: String
}

/// A user with their entitlement, for the admin routes.
struct AdminUser: Codable, Sendable, Equatable {
    var id: String
    var email: String
    var createdAt: String
    var scopes: [String]
    var handle: String?
    var entitlement: Entitlement
}

extension UserStore {
    private static let adminColumns =
        "id, email, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') AS created_at_iso, array_to_string(scopes, ',') AS scopes_csv, handle, free_forever, free_forever_reason, plan"

    private static func adminUser(_ row: PostgresRow) -> AdminUser? {
        guard let id = row.string("id"), let email = row.string("email") else { return nil }
        return AdminUser(
            id: id, email: email, createdAt: row.string("created_at_iso") ?? "",
            scopes: row.string("scopes_csv")?.split(separator: ",").map(String.init) ?? ["user"],
            handle: row.string("handle"),
            entitlement: Entitlement(
                freeForever: row.bool("free_forever") ?? false, reason: row.string("free_forever_reason"),
                plan: row.string("plan") ?? "none"))
    }

    /// Users, newest first.
    func list(limit: Int) async throws -> [AdminUser] {
        try await db.query(
            "SELECT \(unescaped: Self.adminColumns) FROM gateway.users ORDER BY created_at DESC, id LIMIT \(limit)"
        ).compactMap(Self.adminUser)
    }

    /// Sets the manual grant and logs it in the same transaction; nil when there is no such user.
    func setFreeForever(userId: String, _ on: Bool, reason: String?, admin: String) async throws -> AdminUser? {
        let db = self.db
        return try await db.transaction { connection in
            guard
                let user = try await connection.query(
                    """
                    UPDATE gateway.users SET free_forever = \(on), free_forever_reason = \(on ? reason : nil)
                    WHERE id = \(userId) RETURNING \(unescaped: Self.adminColumns)
                    """
                ).first.flatMap(Self.adminUser)
            else { return nil }
            var detail = ["freeForever": String(on)]
            if let reason { detail["reason"] = reason }
            try await AdminLog.append(
                on: connection, db: db, kind: on ? "entitlement_granted" : "entitlement_revoked", actor: admin,
                subject: userId, detail: detail)
            return user
        }
    }
}
