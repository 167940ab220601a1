import Foundation
import Postgres
import Runtime
import Testing

/// Against the real server at POSTGRES_URL.
@Suite struct PostgresIntegrationTests {
    @Test func hostileStringIsStoredVerbatim() async throws {
        try await PG.withSchema("pg_inject") { pool, schema in
            try await pool.execute("CREATE TABLE \(unescaped: schema).notes (id serial PRIMARY KEY, body text)")
            let hostile = "Robert'); DROP TABLE \(schema).notes; -- \"quoted\" \\ $1 '' ; ünïcødé 🚀"
            let inserted = try await pool.query(
                "INSERT INTO \(unescaped: schema).notes (body) VALUES (\(hostile)) RETURNING id")
            let id = try #require(inserted.first?.int("id"))
            let rows = try await pool.query(
                "SELECT body FROM \(unescaped: schema).notes WHERE id = \(id) AND body = \(hostile)")
            #expect(rows.count == 1)
            #expect(rows.first?.string("body") == hostile)
            let count = try await pool.query("SELECT count(*) AS n FROM \(unescaped: schema).notes")
            #expect(count.first?.int("n") == 1)
        }
    }

    @Test func typesRoundTrip() async throws {
        let pool = try await PG.pool(size: 1)
        defer { Task { await pool.close() } }
        let date = Date(timeIntervalSince1970: 1_714_566_600.123456)
        let bytes: [UInt8] = Array(0...255) + [0, 0]
        let tags = ["plain", "with space", "quote\"d", "back\\slash", "comma,x", "NULL", "", "{brace}", "ünï"]
        let rows = try await pool.query(
            """
            SELECT \(Int.max) AS big, \(Int.min) AS small, \(Int64(-5)) AS i8, \(Int32(123)) AS i4,
                   \(0.1 + 0.2) AS d, \(Double.infinity) AS inf, \(Double.nan) AS nan, \(true) AS t, \(false) AS f,
                   \(bytes) AS raw, \([UInt8]()) AS empty_raw, \(date) AS ts, \(tags) AS tags, \([String]()) AS no_tags,
                   \(PostgresJSON(#"{"a": [1, "x\"y"]}"#))->'a'->>1 AS json_field, \("héllo") AS s,
                   \(date)::date AS day, now() - \(date) > interval '1 day' AS past
            """)
        let row = try #require(rows.first)
        #expect(row.int("big") == Int.max)
        #expect(row.int("small") == Int.min)
        #expect(row.int64("i8") == -5)
        #expect(row.int("i4") == 123)
        #expect(row.double("d") == 0.1 + 0.2)
        #expect(row.double("inf") == .infinity)
        #expect(row.double("nan")?.isNaN == true)
        #expect(row.bool("t") == true)
        #expect(row.bool("f") == false)
        #expect(row.bytes("raw") == bytes)
        #expect(row.bytes("empty_raw") == [])
        let ts = try #require(row.date("ts"))
        #expect(abs(ts.timeIntervalSince1970 - date.timeIntervalSince1970) < 1e-6)
        #expect(row.stringArray("tags") == tags)
        #expect(row.stringArray("no_tags") == [])
        #expect(row.string("json_field") == "x\"y")
        #expect(row.string("s") == "héllo")
        #expect(row.date("day") == Date(timeIntervalSince1970: 1_714_521_600))
        #expect(row.bool("past") == true)
        #expect(row.columnNames.first == "big")
        #expect(row.string("no_such_column") == nil)
    }

    @Test func timestampsReadInAnySessionTimeZone() async throws {
        let pool = try await PG.pool(size: 1)
        defer { Task { await pool.close() } }
        let date = Date(timeIntervalSince1970: 1_714_566_600.5)
        let row = try await pool.transaction { connection in
            try await connection.simpleQuery("SET LOCAL TIME ZONE 'Asia/Kolkata'")
            return try await connection.query("SELECT \(date) AS ts, (\(date))::text AS text")
        }.first
        #expect(row?.string("text")?.hasSuffix("+05:30") == true)
        #expect(row?.date("ts") == date)
    }

    @Test func nullsBindAndRead() async throws {
        try await PG.withSchema("pg_nulls") { pool, schema in
            try await pool.execute(
                """
                CREATE TABLE \(unescaped: schema).t (
                    s text, i bigint, d double precision, b boolean, ts timestamptz, raw bytea, tags text[], j jsonb)
                """)
            let s: String? = nil
            let i: Int? = nil
            let d: Double? = nil
            let b: Bool? = nil
            let ts: Date? = nil
            let raw: [UInt8]? = nil
            let tags: [String]? = nil
            let j: PostgresJSON? = nil
            let affected = try await pool.execute(
                "INSERT INTO \(unescaped: schema).t VALUES (\(s), \(i), \(d), \(b), \(ts), \(raw), \(tags), \(j))")
            #expect(affected == 1)
            let row = try #require(try await pool.query("SELECT * FROM \(unescaped: schema).t").first)
            for column in ["s", "i", "d", "b", "ts", "raw", "tags", "j"] {
                #expect(row.isNull(column), "\(column)")
            }
            #expect(row.string("s") == nil && row.int("i") == nil && row.date("ts") == nil && row.bytes("raw") == nil)
            let matched = try await pool.query(
                "SELECT count(*) AS n FROM \(unescaped: schema).t WHERE s IS NOT DISTINCT FROM \(s)")
            #expect(matched.first?.int("n") == 1)
        }
    }

    @Test func executeReportsAffectedRows() async throws {
        try await PG.withSchema("pg_affected") { pool, schema in
            try await pool.execute("CREATE TABLE \(unescaped: schema).t (n int)")
            #expect(try await pool.execute("INSERT INTO \(unescaped: schema).t SELECT generate_series(1, 5)") == 5)
            #expect(try await pool.execute("UPDATE \(unescaped: schema).t SET n = n + 1 WHERE n > \(2)") == 3)
            #expect(try await pool.execute("DELETE FROM \(unescaped: schema).t WHERE n < \(0)") == 0)
        }
    }

    @Test func transactionCommitsAndRollsBack() async throws {
        try await PG.withSchema("pg_tx") { pool, schema in
            try await pool.execute("CREATE TABLE \(unescaped: schema).t (n int UNIQUE)")
            let committed = try await pool.transaction { connection in
                try await connection.execute("INSERT INTO \(unescaped: schema).t VALUES (\(1))")
                return try await connection.execute("INSERT INTO \(unescaped: schema).t VALUES (\(2))")
            }
            #expect(committed == 1)

            await #expect(throws: ExpectedFailure.self) {
                try await pool.transaction { connection in
                    try await connection.execute("INSERT INTO \(unescaped: schema).t VALUES (\(3))")
                    throw ExpectedFailure()
                }
            }
            // A failed statement whose error the body swallowed: COMMIT turns into ROLLBACK and that is reported.
            let swallowed = await #expect(throws: PostgresError.self) {
                try await pool.transaction { connection in
                    try await connection.execute("INSERT INTO \(unescaped: schema).t VALUES (\(4))")
                    _ = try? await connection.execute("INSERT INTO \(unescaped: schema).t VALUES (\(1))")
                }
            }
            #expect(swallowed?.code == .transactionRolledBack)
            let rows = try await pool.query("SELECT n FROM \(unescaped: schema).t ORDER BY n")
            #expect(rows.compactMap { $0.int("n") } == [1, 2])
        }
    }

    @Test func poolServesMoreTasksThanConnections() async throws {
        let pool = try await PG.pool(size: 3)
        defer { Task { await pool.close() } }
        let results = try await withThrowingTaskGroup(of: (Int, Int, Int).self) { group in
            for i in 0..<30 {
                group.addTask {
                    let row = try await pool.query(
                        "SELECT \(i) AS i, pg_backend_pid() AS pid, pg_sleep(0.01)::text AS z")
                    return (i, row.first?.int("i") ?? -1, row.first?.int("pid") ?? -1)
                }
            }
            var out: [(Int, Int, Int)] = []
            for try await result in group { out.append(result) }
            return out
        }
        #expect(results.count == 30)
        #expect(results.allSatisfy { $0.0 == $0.1 })
        #expect(Set(results.map(\.2)).count <= 3)
    }

    @Test func waitersTimeOut() async throws {
        let pool = try await PG.pool(size: 1, acquireTimeout: .milliseconds(200))
        defer { Task { await pool.close() } }
        let holder = Task { try await pool.query("SELECT pg_sleep(0.8)") }
        try await Task.sleep(for: .milliseconds(100))
        let start = ContinuousClock.now
        let error = await #expect(throws: PostgresError.self) { try await pool.query("SELECT 1") }
        #expect(error?.code == .poolTimeout)
        #expect(error?.isRetriable == true)
        #expect(elapsed(since: start) < 1.5)  // 200 ms timeout; margin for a loaded CI box
        _ = try await holder.value
        #expect(try await pool.query("SELECT 1 AS one").first?.int("one") == 1)
    }

    @Test func reservedConnectionReleasesAdvisoryLocks() async throws {
        let pool = try await PG.pool(size: 1)
        let other = try await PG.pool(size: 1)
        defer {
            Task {
                await pool.close()
                await other.close()
            }
        }
        let key = Int64.random(in: 1...Int64.max)
        let heldInside = try await pool.withReservedConnection { connection in
            _ = try await connection.query("SELECT pg_advisory_lock(\(key))")
            _ = try await connection.query("SELECT pg_advisory_lock_shared(\(key + 1 == Int64.min ? 1 : key &+ 1))")
            return try await other.query("SELECT pg_try_advisory_lock(\(key)) AS got").first?.bool("got")
        }
        #expect(heldInside == false)
        let afterwards = try await other.query(
            "SELECT pg_try_advisory_lock(\(key)) AS got, pg_advisory_unlock(\(key)) AS released")
        #expect(afterwards.first?.bool("got") == true)

        // Also when the body throws, and the same (only) connection comes back without locks.
        await #expect(throws: ExpectedFailure.self) {
            try await pool.withReservedConnection { connection in
                _ = try await connection.query("SELECT pg_advisory_lock(\(key))")
                throw ExpectedFailure()
            }
        }
        let locks = try await pool.query(
            "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()")
        #expect(locks.first?.int("n") == 0)
    }

    @Test func concurrentMigrationsApplyExactlyOnce() async throws {
        let schema = PG.schemaName("pg_migrate")
        let first = try await PG.pool(size: 2)
        let second = try await PG.pool(size: 2)
        let migrations = [
            Migration(
                version: 1, name: "side effects",
                sql: """
                    CREATE TABLE side_effects (version int);
                    SELECT pg_sleep(0.2);
                    INSERT INTO side_effects VALUES (1);
                    """),
            Migration(
                version: 2, name: "items", sql: "CREATE TABLE items (id bigint PRIMARY KEY, name text NOT NULL);"),
            Migration(version: 3, name: "more side effects", sql: "INSERT INTO side_effects VALUES (3);"),
        ]
        async let a: Void = first.migrate(schema: schema, migrations: migrations)
        async let b: Void = second.migrate(schema: schema, migrations: migrations.reversed())
        _ = try await (a, b)

        let effects = try await first.query("SELECT version FROM \(unescaped: schema).side_effects ORDER BY version")
        #expect(effects.compactMap { $0.int("version") } == [1, 3])
        let recorded = try await first.query(
            "SELECT version, name, applied_at FROM \(unescaped: schema).schema_migrations ORDER BY version")
        #expect(recorded.compactMap { $0.int("version") } == [1, 2, 3])
        #expect(recorded.first?.string("name") == "side effects")
        #expect(recorded.first?.date("applied_at") != nil)

        // A later run applies only the new migration; a failing one rolls the whole run back.
        try await second.migrate(
            schema: schema,
            migrations: migrations + [Migration(version: 4, name: "four", sql: "INSERT INTO side_effects VALUES (4)")])
        let failing =
            migrations + [
                Migration(version: 5, name: "five", sql: "INSERT INTO side_effects VALUES (5)"),
                Migration(version: 6, name: "broken", sql: "INSERT INTO no_such_table VALUES (6)"),
            ]
        let error = await #expect(throws: PostgresError.self) {
            try await first.migrate(schema: schema, migrations: failing)
        }
        #expect(error?.sqlState == "42P01")
        let after = try await first.query("SELECT version FROM \(unescaped: schema).side_effects ORDER BY version")
        #expect(after.compactMap { $0.int("version") } == [1, 3, 4])

        try await first.withConnection { try await $0.simpleQuery("DROP SCHEMA \(schema) CASCADE") }
        await first.close()
        await second.close()
    }

    @Test func failedFirstMigrationLeavesNoSchema() async throws {
        let pool = try await PG.pool(size: 1)
        defer { Task { await pool.close() } }
        let schema = PG.schemaName("pg_migrate_fail")
        await #expect(throws: PostgresError.self) {
            try await pool.migrate(schema: schema, migrations: [Migration(version: 1, name: "bad", sql: "SELEC 1")])
        }
        let rows = try await pool.query("SELECT count(*) AS n FROM pg_namespace WHERE nspname = \(schema)")
        #expect(rows.first?.int("n") == 0)
        await #expect(throws: PostgresError.self) {
            try await pool.migrate(schema: "Bad-Name", migrations: [])
        }
    }

    @Test func serverErrorsCarrySQLStateAndStayGeneric() async throws {
        try await PG.withSchema("pg_errors", size: 1) { pool, schema in
            let syntax = await #expect(throws: PostgresError.self) { try await pool.query("SELEC 1") }
            #expect(syntax?.sqlState == "42601")
            #expect(syntax?.code == .server)
            #expect(syntax?.isRetriable == false)

            let missing = await #expect(throws: PostgresError.self) {
                try await pool.query("SELECT * FROM \(unescaped: schema).secret_table_name")
            }
            #expect(missing?.sqlState == "42P01")
            #expect(missing.map { !$0.description.contains("secret_table_name") } == true)
            #expect(missing.map { $0.debugDescription.contains("secret_table_name") } == true)

            try await pool.execute(
                "CREATE TABLE \(unescaped: schema).users (email text CONSTRAINT users_email_key UNIQUE)")
            try await pool.execute("INSERT INTO \(unescaped: schema).users VALUES (\("someone@example.com"))")
            let duplicate = await #expect(throws: PostgresError.self) {
                try await pool.execute("INSERT INTO \(unescaped: schema).users VALUES (\("someone@example.com"))")
            }
            #expect(duplicate?.isUniqueViolation == true)
            #expect(duplicate?.constraintName == "users_email_key")
            #expect(duplicate.map { !"\($0)".contains("someone@example.com") } == true)

            let nul = await #expect(throws: PostgresError.self) { try await pool.query("SELECT \("a\u{0}b")") }
            #expect(nul?.code == .invalidArgument)
            // The single connection is still fine after all of this.
            #expect(try await pool.query("SELECT 2 AS two").first?.int("two") == 2)
        }
    }

    @Test func cancellingTheTaskCancelsTheStatement() async throws {
        let pool = try await PG.pool(size: 1)
        defer { Task { await pool.close() } }
        let start = ContinuousClock.now
        let task = Task { try await pool.query("SELECT pg_sleep(10)") }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        let result = await task.result
        #expect(elapsed(since: start) < 3)
        switch result {
        case .success: Issue.record("expected the statement to be cancelled")
        case .failure(let error):
            #expect((error as? PostgresError)?.sqlState == "57014" || error is CancellationError)
        }
        #expect(try await pool.query("SELECT 3 AS three").first?.int("three") == 3)
    }

    @Test func terminatedConnectionIsReplaced() async throws {
        let pool = try await PG.pool(size: 1)
        let admin = try await PG.pool(size: 1)
        defer {
            Task {
                await pool.close()
                await admin.close()
            }
        }
        let pid = try #require(try await pool.query("SELECT pg_backend_pid() AS pid").first?.int("pid"))
        _ = try await admin.query("SELECT pg_terminate_backend(\(Int32(pid)))")
        try await Task.sleep(for: .milliseconds(100))
        let newPid = try await pool.query("SELECT pg_backend_pid() AS pid").first?.int("pid")
        #expect(newPid != nil && newPid != pid)
    }

    @Test func aConnectionDroppedMidStatementIsRetriedOnAFreshOne() async throws {
        let pool = try await PG.pool(size: 1)
        let admin = try await PG.pool(size: 1)
        defer {
            Task {
                await pool.close()
                await admin.close()
            }
        }
        let marker = "drop-\(UInt32.random(in: 0...UInt32.max))"
        let running = Task {
            try await pool.query("SELECT \(marker)::text AS marker, pg_backend_pid() AS pid, pg_sleep(0.5)")
        }
        // Terminate the backend while the statement runs: the old pool answered connectionClosed at once.
        var victim: Int?
        for _ in 0..<100 where victim == nil {
            victim = try await admin.query(
                "SELECT pid FROM pg_stat_activity WHERE query LIKE '%pg_sleep(0.5)%' AND pid <> pg_backend_pid()"
            ).first?.int("pid")
            if victim == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        let pid = try #require(victim)
        _ = try await admin.query("SELECT pg_terminate_backend(\(Int32(pid)))")
        let rows = try await running.value
        #expect(rows.first?.string("marker") == marker)
        #expect(rows.first?.int("pid") != pid)
    }

    @Test func unreachableServerIsRetriedUntilTheTaskDeadlineThenRetriable() async throws {
        let pool = try await PostgresPool.make(
            url: "postgres://mapvest:pw@127.0.0.1:1/mapvest", size: 1, logger: Logger(label: "t", sink: .memory()))
        let start = ContinuousClock.now
        let error = await #expect(throws: PostgresError.self) {
            try await TaskDeadline.$current.withValue(.now + .milliseconds(800)) { try await pool.query("SELECT 1") }
        }
        #expect(error?.isRetriable == true)
        // Retried until the deadline (not an answer at once), and not past it.
        #expect(elapsed(since: start) >= 0.5 && elapsed(since: start) < 1.5)
        await pool.close()
    }

    @Test func unreachableServerFailsWithinItsRetryWindow() async throws {
        let sink = LogSink.memory()
        let pool = try await PostgresPool.make(
            url: "postgres://mapvest:s3cret-pw@127.0.0.1:1/mapvest", size: 2, logger: Logger(label: "t", sink: sink),
            retryWindow: .milliseconds(500))
        let start = ContinuousClock.now
        let error = await #expect(throws: PostgresError.self) { try await pool.query("SELECT 1") }
        #expect(error?.code == .connectionFailed)
        #expect(error?.isRetriable == true)
        #expect(elapsed(since: start) < 3)
        #expect(!sink.lines.joined().contains("s3cret-pw"))
        await pool.close()
        let closed = await #expect(throws: PostgresError.self) { try await pool.query("SELECT 1") }
        #expect(closed?.code == .poolClosed)

        await #expect(throws: PostgresError.self) {
            _ = try await PostgresPool.make(url: "postgres://h/db?bogus_option=1", size: 1, logger: Logger(label: "t"))
        }
    }
}
