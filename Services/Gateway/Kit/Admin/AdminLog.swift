import Foundation
import Postgres
import Runtime

/// One entry of the admin log: an abuse trip, an admin's action, a grant.
struct AdminLogEntry: Codable, Sendable, Equatable {
    var id: Int
    /// `suspected_abuse`, `admin_action`, `entitlement_granted`, `entitlement_revoked`.
    var kind: String
    /// The admin's user id; absent for what the system logged on its own.
    var actor: String?
    /// Whom or what the entry is about (a user id, `ip:<address>`).
    var subject: String?
    var detail: [String: String]
    var createdAt: String
}

/// The admin log (`gateway.admin_log`): newest first, written by the identify guards and by every admin route.
struct AdminLog: Sendable {
    let db: PostgresPool

    /// Versions 20+ in the gateway's schema (users and usage use the low numbers).
    static let migrations: [Migration] = [
        Migration(
            version: 20, name: "admin log",
            sql: """
                CREATE TABLE IF NOT EXISTS gateway.admin_log (
                    id BIGSERIAL PRIMARY KEY,
                    kind TEXT NOT NULL,
                    actor TEXT,
                    subject TEXT,
                    detail JSONB NOT NULL DEFAULT '{}'::jsonb,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
                );
                CREATE INDEX IF NOT EXISTS admin_log_recent_idx ON gateway.admin_log (created_at DESC, id DESC);
                """)
    ]

    func append(kind: String, actor: String?, subject: String?, detail: [String: String]) async throws {
        try await Self.append(on: nil, db: db, kind: kind, actor: actor, subject: subject, detail: detail)
    }

    /// Appends on `connection` (inside the caller's transaction) or on the pool.
    static func append(
        on connection: PostgresConnection?, db: PostgresPool, kind: String, actor: String?, subject: String?,
        detail: [String: String]
    ) async throws {
        let json = PostgresJSON(String(decoding: try JSONEncoder().encode(detail), as: UTF8.self))
        let query: PostgresQuery = """
            INSERT INTO gateway.admin_log (kind, actor, subject, detail) VALUES (\(kind), \(actor), \(subject), \(json))
            """
        if let connection { _ = try await connection.execute(query) } else { _ = try await db.execute(query) }
    }

    /// The newest `limit` entries, newest first.
    func recent(limit: Int) async throws -> [AdminLogEntry] {
        try await db.query(
            """
            SELECT id, kind, actor, subject, detail::text AS detail_json,
                   to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_iso
            FROM gateway.admin_log ORDER BY created_at DESC, id DESC LIMIT \(limit)
            """
        ).compactMap { row in
            guard let id = row.int("id"), let kind = row.string("kind"), let created = row.string("created_iso") else {
                return nil
            }
            let detail = row.string("detail_json").flatMap {
                try? JSONDecoder().decode([String: String].self, from: Data($0.utf8))
            }
            return AdminLogEntry(
                id: id, kind: kind, actor: row.string("actor"), subject: row.string("subject"), detail: detail ?? [:],
                createdAt: created)
        }
    }
}
