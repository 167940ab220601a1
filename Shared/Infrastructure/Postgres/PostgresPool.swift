import CLibPQ
import Runtime

/// One schema migration: applied once, in version order, by `PostgresPool.migrate`.
public struct Migration: Sendable {
    public let version: Int
    public let name: String
    /// Code-owned SQL; may hold several statements. It runs inside the migration transaction, so it must not use
    /// statements that refuse transactions (`CREATE INDEX CONCURRENTLY`, `VACUUM`) or COMMIT itself.
    public let sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}

/// A bounded pool of Postgres sessions. Connections open lazily up to `size`; broken ones are discarded and
/// replaced; callers wait FIFO for a free one up to `acquireTimeout`. Each connection runs its blocking libpq
/// calls on its own serial queue.
///
/// Connection failures are retried with back-off until the caller's `TaskDeadline` (a command's budget) but at most
/// `maxRetry` (a cache read inside a 30 s identify should not wait out the budget), or for `retryWindow` when no
/// deadline is set: opening a connection always (nothing was sent), and a single `query`/`execute`
/// also when the connection broke under it (so a statement may run twice: keep single statements idempotent, as
/// at-least-once delivery requires anyway). Transactions retry only the open. What still fails throws a retriable
/// `PostgresError`, which command handlers answer with 503 `{"error":"database unavailable"}`.
public final class PostgresPool: Sendable {
    private let pool: ConnectionPool<PostgresConnection>
    private let logger: Logger
    /// How long connection failures are retried when the task has no `TaskDeadline`.
    public let retryWindow: Duration
    /// The longest connection failures are retried, whatever the task's deadline.
    static let maxRetry: Duration = .seconds(5)

    private static let inUse = MetricsRegistry.shared.gauge(
        "postgres_pool_in_use", help: "Postgres connections currently handed out by pools.")

    private init(pool: ConnectionPool<PostgresConnection>, logger: Logger, retryWindow: Duration) {
        self.pool = pool
        self.logger = logger
        self.retryWindow = retryWindow
    }

    /// A pool for `url`, a libpq connection URI (`postgres://user:pass@host:port/db?sslmode=…`). The URL is checked
    /// here; no connection is opened until first use. `connectTimeout` (libpq's whole seconds, at least 2) applies
    /// unless the URL sets `connect_timeout`.
    public static func make(
        url: String, size: Int, logger: Logger, acquireTimeout: Duration = .seconds(5),
        connectTimeout: Duration = .seconds(3), retryWindow: Duration = .seconds(2)
    ) async throws -> PostgresPool {
        guard size >= 1 else { throw PostgresError(code: .invalidArgument, message: "pool size must be at least 1") }
        var parseError: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &parseError) else {
            let message = parseError.map { String(cString: $0) } ?? "invalid connection URL"
            if let parseError { PQfreemem(parseError) }
            throw PostgresError(code: .invalidArgument, message: message)
        }
        PQconninfoFree(options)

        let logger = logger.with([LogKeys.component: "postgres"])
        let hooks = ConnectionPool<PostgresConnection>.Hooks(
            open: {
                do {
                    return try await PostgresConnection.make(url: url, connectTimeout: connectTimeout)
                } catch {
                    logger.warning("postgres connect failed", [LogKeys.error: .string("\(error)")])
                    throw error
                }
            },
            isUsable: { await $0.isUsableWhenIdle() },
            close: { await $0.close() },
            timeoutError: { PostgresError(code: .poolTimeout, message: "no connection free within \(acquireTimeout)") },
            closedError: { PostgresError(code: .poolClosed) })
        let pool = ConnectionPool(capacity: size, acquireTimeout: acquireTimeout, inUse: inUse, hooks: hooks)
        return PostgresPool(pool: pool, logger: logger, retryWindow: retryWindow)
    }

    /// Runs one statement on a pooled connection and returns its rows (retried on connection failures).
    public func query(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await retryingConnectionFailures(includingBroken: true) {
            try await withConnection { try await $0.query(query) }
        }
    }

    /// Runs one statement on a pooled connection and returns the number of affected rows (retried on connection
    /// failures).
    @discardableResult
    public func execute(_ query: PostgresQuery) async throws -> Int {
        try await retryingConnectionFailures(includingBroken: true) {
            try await withConnection { try await $0.execute(query) }
        }
    }

    /// A pooled connection for several statements outside a transaction. A transaction left open by `body` is
    /// rolled back before the connection goes back.
    public func withConnection<T: Sendable>(
        _ body: @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let connection = try await acquire()
        let result: Result<T, any Error>
        do {
            result = .success(try await body(connection))
        } catch {
            result = .failure(error)
        }
        await giveBack(connection)
        return try result.get()
    }

    /// Runs `body` between BEGIN and COMMIT; ROLLBACK when it throws. When a statement failed inside `body` and the
    /// error was swallowed, COMMIT rolls back and this throws `transactionRolledBack`. Not retried here: retry the
    /// whole call when the error `isRetriable` (serialization failures, deadlocks).
    public func transaction<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        // withConnection retries the open only: a statement of `body` may have had effects outside the database.
        try await withConnection { connection in
            try await connection.simpleQuery("BEGIN")
            do {
                let value = try await body(connection)
                let status = try await connection.command("COMMIT")
                if status == "ROLLBACK" {
                    throw PostgresError(
                        code: .transactionRolledBack, message: "COMMIT rolled back a failed transaction")
                }
                return value
            } catch {
                if connection.sessionState == .inTransaction { _ = try? await connection.command("ROLLBACK") }
                throw error
            }
        }
    }

    /// A connection reserved for session-level state such as advisory locks (`pg_advisory_lock`). Afterwards, even
    /// when `body` throws or is cancelled, an open transaction is rolled back and `SELECT pg_advisory_unlock_all()`
    /// runs; if that fails the connection is closed instead of returned, which also releases its locks.
    public func withReservedConnection<T: Sendable>(
        _ body: @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let connection = try await acquire()
        let result: Result<T, any Error>
        do {
            result = .success(try await body(connection))
        } catch {
            result = .failure(error)
        }
        var clean = false
        do {
            if connection.sessionState == .inTransaction { _ = try await connection.command("ROLLBACK") }
            _ = try await connection.command("SELECT pg_advisory_unlock_all()")
            clean = connection.sessionState == .idle
        } catch {
            logger.warning("closing reserved connection: unlock failed", [LogKeys.error: .string("\(error)")])
        }
        pool.release(connection, reusable: clean)
        return try result.get()
    }

    /// Applies `migrations` for one owner schema, each exactly once even when replicas run this concurrently.
    ///
    /// In ONE transaction: takes `pg_advisory_xact_lock(hashtextextended('mapvest.migrate.<schema>', 0))`, creates
    /// the schema if missing and `<schema>.schema_migrations(version, name, applied_at)`, then applies every migration
    /// whose version is not recorded, in version order, and records it. Creating the schema under the lock avoids the
    /// catalog race of concurrent `CREATE … IF NOT EXISTS`. `search_path` is `<schema>, public` while migrations run,
    /// so unqualified names land in the owner schema (qualify them in queries). Any failure rolls back the whole run.
    /// `schema` must be a lower-case identifier (`[a-z_][a-z0-9_]*`, at most 63 bytes).
    public func migrate(schema: String, migrations: [Migration]) async throws {
        guard Self.isPlainIdentifier(schema) else {
            throw PostgresError(code: .invalidArgument, message: "schema must match [a-z_][a-z0-9_]{0,62}")
        }
        let ordered = migrations.sorted { $0.version < $1.version }
        for (a, b) in zip(ordered, ordered.dropFirst()) where a.version == b.version {
            throw PostgresError(code: .invalidArgument, message: "duplicate migration version \(a.version)")
        }
        let logger = self.logger.with([LogKeys.dbSchema: .string(schema)])
        let applied = try await transaction { connection -> [Migration] in
            _ = try await connection.query(
                "SELECT pg_advisory_xact_lock(hashtextextended(\("mapvest.migrate." + schema), 0))")
            let exists = try await connection.query("SELECT 1 FROM pg_namespace WHERE nspname = \(schema)")
            if exists.isEmpty { try await connection.simpleQuery("CREATE SCHEMA \"\(schema)\"") }
            try await connection.simpleQuery(
                """
                CREATE TABLE IF NOT EXISTS "\(schema)".schema_migrations (
                    version integer PRIMARY KEY,
                    name text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                );
                SET LOCAL search_path TO "\(schema)", public
                """)
            var recorded: [Int: String] = [:]
            let table = "\"\(schema)\".schema_migrations"
            for row in try await connection.query("SELECT version, name FROM \(unescaped: table)") {
                if let version = row.int("version") { recorded[version] = row.string("name") ?? "" }
            }
            var applied: [Migration] = []
            for migration in ordered {
                if let name = recorded[migration.version] {
                    if name != migration.name {
                        logger.warning(
                            "recorded migration has another name",
                            [
                                LogKeys.dbMigrationVersion: .int(migration.version),
                                LogKeys.dbMigrationName: .string(migration.name),
                            ])
                    }
                    continue
                }
                try await connection.simpleQuery(migration.sql)
                try await connection.execute(
                    """
                    INSERT INTO \(unescaped: table) (version, name)
                    VALUES (\(migration.version), \(migration.name))
                    """)
                applied.append(migration)
            }
            return applied
        }
        for migration in applied {
            logger.info(
                "migration applied",
                [LogKeys.dbMigrationVersion: .int(migration.version), LogKeys.dbMigrationName: .string(migration.name)])
        }
    }

    /// Fails waiters, closes idle connections; connections in use close when they come back.
    public func close() async {
        await pool.close()
    }

    /// A connection, retrying failed opens (the server is down or restarting) until the deadline.
    private func acquire() async throws -> PostgresConnection {
        try await retryingConnectionFailures(includingBroken: false) { try await pool.acquire() }
    }

    private func retryingConnectionFailures<T: Sendable>(
        includingBroken: Bool, _ work: () async throws -> T
    ) async throws -> T {
        let now = ContinuousClock.now
        let deadline = min(TaskDeadline.current ?? now + retryWindow, now + Self.maxRetry)
        return try await Retry.run(
            until: deadline, backoff: Backoff(initial: .milliseconds(50), maximum: .seconds(1)),
            shouldRetry: { Self.isConnectionFailure($0, includingBroken: includingBroken) }, work)
    }

    /// Failures of the connection rather than of the statement: the server could not be reached, went away, or
    /// is shutting down or starting up.
    static func isConnectionFailure(_ error: any Error, includingBroken: Bool) -> Bool {
        guard let error = error as? PostgresError else { return false }
        switch error.code {
        case .connectionFailed: return true
        case .connectionClosed: return includingBroken
        case .server:
            guard includingBroken, let state = error.sqlState else { return false }
            return state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state)
        default: return false
        }
    }

    private func giveBack(_ connection: PostgresConnection) async {
        if connection.sessionState == .inTransaction {
            do {
                _ = try await connection.command("ROLLBACK")
            } catch {
                logger.warning("rollback of an abandoned transaction failed", [LogKeys.error: .string("\(error)")])
            }
        }
        pool.release(connection, reusable: connection.sessionState == .idle)
    }

    static func isPlainIdentifier(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 63, first == UInt8(ascii: "_") || (97...122).contains(first)
        else { return false }
        return bytes.allSatisfy { $0 == UInt8(ascii: "_") || (97...122).contains($0) || (48...57).contains($0) }
    }
}
