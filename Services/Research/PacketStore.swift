import Contracts
import Crypto
import Foundation
import Postgres
import ResearchCore

/// Prism and Situate builds (`research.packet_builds`, `research.packet_owners`): one row per kind, ticker and day,
/// so concurrent builds of one ticker join one job; its owners are notified once it is stored. A replica runs a
/// build under a lease it renews; a lease that lapses (the replica died) lets another replica run it again, at most
/// `PacketRules.maxAttempts` times in all.
struct PacketStore: Sendable {
    let db: PostgresPool

    static let migrations: [Migration] = [
        Migration(
            version: 3, name: "packet builds",
            sql: """
                CREATE TABLE IF NOT EXISTS research.packet_builds (
                    id TEXT PRIMARY KEY,
                    kind TEXT NOT NULL,
                    ticker TEXT NOT NULL,
                    day TEXT NOT NULL,
                    request TEXT NOT NULL,
                    status TEXT NOT NULL,
                    stage TEXT NOT NULL,
                    generation INT NOT NULL DEFAULT 1,
                    attempts INT NOT NULL DEFAULT 0,
                    lease_owner TEXT,
                    lease_until TIMESTAMPTZ,
                    packet TEXT,
                    error TEXT,
                    notified BOOLEAN NOT NULL DEFAULT false,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
                );
                CREATE UNIQUE INDEX IF NOT EXISTS packet_builds_day_idx ON research.packet_builds (kind, ticker, day);
                CREATE INDEX IF NOT EXISTS packet_builds_due_idx ON research.packet_builds (created_at)
                    WHERE status IN ('queued', 'running') OR (status = 'done' AND NOT notified);
                CREATE TABLE IF NOT EXISTS research.packet_owners (
                    build_id TEXT NOT NULL REFERENCES research.packet_builds(id) ON DELETE CASCADE,
                    owner_key TEXT NOT NULL,
                    user_id TEXT,
                    generation INT NOT NULL,
                    PRIMARY KEY (build_id, owner_key, generation)
                );
                """)
    ]

    /// One build row.
    struct Build: Sendable {
        var id: String
        var kind: PacketKind
        var ticker: String
        var day: String
        var request: PacketBuildCommand?
        var status: String
        var stage: String
        var generation: Int
        var attempts: Int
        var packet: String?
        var error: String?
        var updatedAt: String

        var state: PacketBuildState {
            PacketBuildState(
                ticker: ticker, kind: kind, buildId: id, status: status, stage: stage, attempts: attempts,
                updatedAt: updatedAt, error: error)
        }
    }

    private static let columns = """
        id, kind, ticker, day, request, status, stage, generation, attempts, packet, error,
        to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_iso
        """

    private static func build(_ row: PostgresRow) -> Build? {
        guard let id = row.string("id"), let kind = PacketKind(rawValue: row.string("kind") ?? ""),
            let ticker = row.string("ticker"), let day = row.string("day")
        else { return nil }
        return Build(
            id: id, kind: kind, ticker: ticker, day: day,
            request: row.string("request").flatMap {
                try? JSONDecoder().decode(PacketBuildCommand.self, from: Data($0.utf8))
            },
            status: row.string("status") ?? "failed", stage: row.string("stage") ?? "failed",
            generation: row.int("generation") ?? 1, attempts: row.int("attempts") ?? 0, packet: row.string("packet"),
            error: row.string("error"), updatedAt: row.string("updated_iso") ?? "")
    }

    /// Starts today's build of `command`'s ticker, joins the one going, or (forced, or after a failure) queues it
    /// again; adds the caller to its owners. `joined` is false when the caller already owned this generation.
    func start(_ command: PacketBuildCommand, day: String, ownerKey: String) async throws -> (
        build: Build, joined: Bool
    )? {
        let request = String(decoding: try JSONEncoder().encode(command), as: UTF8.self)
        let id = "pb_" + Digest.randomHex(bytes: 12)
        let joined = try await db.transaction { connection in
            try await connection.execute(
                """
                INSERT INTO research.packet_builds (id, kind, ticker, day, request, status, stage)
                VALUES (\(id), \(command.kind.rawValue), \(command.ticker), \(day), \(request), 'queued', 'queued')
                ON CONFLICT (kind, ticker, day) DO NOTHING
                """)
            // A failed build, or a forced rebuild of a finished one, is queued again as a new generation.
            try await connection.execute(
                """
                UPDATE research.packet_builds SET status = 'queued', stage = 'queued', attempts = 0, notified = false,
                    generation = generation + 1, request = \(request), error = NULL, lease_owner = NULL,
                    lease_until = NULL, updated_at = now()
                WHERE kind = \(command.kind.rawValue) AND ticker = \(command.ticker) AND day = \(day)
                  AND (status = 'failed' OR (status = 'done' AND \(command.force)))
                """)
            return try await connection.execute(
                """
                INSERT INTO research.packet_owners (build_id, owner_key, user_id, generation)
                SELECT id, \(ownerKey), \(command.owner.userId), generation FROM research.packet_builds
                WHERE kind = \(command.kind.rawValue) AND ticker = \(command.ticker) AND day = \(day)
                ON CONFLICT DO NOTHING
                """)
        }
        guard let build = try await latest(kind: command.kind, ticker: command.ticker, day: day) else { return nil }
        return (build, joined > 0)
    }

    /// The build of `day`, or (no day) the newest one with a packet, else the newest.
    func latest(kind: PacketKind, ticker: String, day: String? = nil) async throws -> Build? {
        if let day {
            return try await db.query(
                """
                SELECT \(unescaped: Self.columns) FROM research.packet_builds
                WHERE kind = \(kind.rawValue) AND ticker = \(ticker) AND day = \(day)
                """
            ).first.flatMap(Self.build)
        }
        return try await db.query(
            """
            SELECT \(unescaped: Self.columns) FROM research.packet_builds
            WHERE kind = \(kind.rawValue) AND ticker = \(ticker)
            ORDER BY (packet IS NOT NULL) DESC, updated_at DESC LIMIT 1
            """
        ).first.flatMap(Self.build)
    }

    /// Takes the oldest build that is queued or whose runner's lease lapsed, for `worker`, for `lease`; a lapsed
    /// build with no attempt left is marked failed instead.
    func claim(worker: String, lease: Duration) async throws -> Build? {
        let ms = Int(lease.components.seconds * 1000 + lease.components.attoseconds / 1_000_000_000_000_000)
        try await db.execute(
            """
            UPDATE research.packet_builds SET status = 'failed', stage = 'failed', updated_at = now(),
                error = 'the build did not finish', lease_owner = NULL
            WHERE status = 'running' AND lease_until < now() AND attempts >= \(PacketRules.maxAttempts)
            """)
        return try await db.query(
            """
            UPDATE research.packet_builds SET status = 'running', stage = 'building', attempts = attempts + 1,
                lease_owner = \(worker), lease_until = now() + \(ms) * interval '1 millisecond', updated_at = now()
            WHERE id = (
                SELECT id FROM research.packet_builds
                WHERE status = 'queued' OR (status = 'running' AND lease_until < now())
                ORDER BY created_at FOR UPDATE SKIP LOCKED LIMIT 1)
            RETURNING \(unescaped: Self.columns)
            """
        ).first.flatMap(Self.build)
    }

    /// Takes a stored build whose owners were not all notified (its notifier died), for `worker`.
    func claimNotification(worker: String, lease: Duration) async throws -> Build? {
        let ms = Int(lease.components.seconds * 1000)
        return try await db.query(
            """
            UPDATE research.packet_builds SET lease_owner = \(worker),
                lease_until = now() + \(ms) * interval '1 millisecond'
            WHERE id = (
                SELECT id FROM research.packet_builds
                WHERE status = 'done' AND NOT notified AND (lease_until IS NULL OR lease_until < now())
                ORDER BY created_at FOR UPDATE SKIP LOCKED LIMIT 1)
            RETURNING \(unescaped: Self.columns)
            """
        ).first.flatMap(Self.build)
    }

    /// Extends `worker`'s lease; false when it lost the build.
    func renew(_ id: String, worker: String, lease: Duration) async throws -> Bool {
        let ms = Int(lease.components.seconds * 1000)
        return try await db.execute(
            """
            UPDATE research.packet_builds SET lease_until = now() + \(ms) * interval '1 millisecond'
            WHERE id = \(id) AND lease_owner = \(worker)
            """) > 0
    }

    /// Stores the packet of `worker`'s build; false when the build is no longer its own.
    func store(_ id: String, worker: String, packet: String) async throws -> Bool {
        try await db.execute(
            """
            UPDATE research.packet_builds SET status = 'done', stage = 'notifying', packet = \(packet), error = NULL,
                updated_at = now()
            WHERE id = \(id) AND lease_owner = \(worker) AND status = 'running'
            """) > 0
    }

    /// Ends `worker`'s attempt without a packet: queued again when `retry` and an attempt is left, else failed.
    func fail(_ id: String, worker: String, error: String, retry: Bool) async throws {
        try await db.execute(
            """
            UPDATE research.packet_builds SET updated_at = now(), error = \(error), lease_owner = NULL,
                lease_until = NULL,
                status = CASE WHEN \(retry) AND attempts < \(PacketRules.maxAttempts) THEN 'queued' ELSE 'failed' END,
                stage = CASE WHEN \(retry) AND attempts < \(PacketRules.maxAttempts) THEN 'queued' ELSE 'failed' END
            WHERE id = \(id) AND lease_owner = \(worker) AND status = 'running'
            """)
    }

    /// The signed-in owners of a build generation.
    func owners(_ id: String, generation: Int) async throws -> [String] {
        try await db.query(
            """
            SELECT DISTINCT user_id FROM research.packet_owners
            WHERE build_id = \(id) AND generation = \(generation) AND user_id IS NOT NULL ORDER BY user_id
            """
        ).compactMap { $0.string("user_id") }
    }

    /// Marks a build's owners notified.
    func notified(_ id: String, generation: Int) async throws {
        try await db.execute(
            """
            UPDATE research.packet_builds SET notified = true, stage = 'done', lease_owner = NULL, lease_until = NULL
            WHERE id = \(id) AND generation = \(generation)
            """)
    }
}
