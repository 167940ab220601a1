import Foundation
import Postgres
import Runtime
import TestSupport
import Testing

extension SystemTests {
    /// Replicas that start together apply each migration once (an advisory lock serializes them).
    @Suite struct MigrationTests {
        @Test func twoProcessesStartingAtOnceApplyEachMigrationOnce() async throws {
            let db = try await PostgresPool.make(
                url: try TestEnvironment.require("POSTGRES_URL"), size: 1, logger: Logger(label: "t", sink: .memory()))
            _ = try await db.execute("DROP SCHEMA IF EXISTS identify CASCADE")
            async let first = ServiceProcess.start("Identify")
            async let second = ServiceProcess.start("Identify")
            let (a, b) = try await (first, second)
            defer {
                a.kill()
                b.kill()
            }
            let rows = try await db.query(
                "SELECT version, count(*) AS n FROM identify.schema_migrations GROUP BY version ORDER BY version")
            #expect(!rows.isEmpty)
            #expect(rows.allSatisfy { $0.int("n") == 1 })
            let table = try await db.query("SELECT to_regclass('identify.user_finds')::text AS t")
            #expect(table.first?.string("t") == "identify.user_finds")
            await db.close()
        }
    }
}
