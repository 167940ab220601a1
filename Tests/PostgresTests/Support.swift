import Foundation
import Postgres
import Runtime
import TestSupport

enum PG {
    static func url() throws -> String { try TestEnvironment.require("POSTGRES_URL") }

    static func pool(size: Int = 4, acquireTimeout: Duration = .seconds(5), sink: LogSink = .memory()) async throws
        -> PostgresPool
    {
        try await PostgresPool.make(
            url: url(), size: size, logger: Logger(label: "postgres-tests", sink: sink), acquireTimeout: acquireTimeout)
    }

    /// A fresh schema name that is a valid identifier.
    static func schemaName(_ prefix: String) -> String {
        "mvt_" + TestEnvironment.uniqueName(prefix).replacingOccurrences(of: "-", with: "_")
    }

    /// A pool plus a fresh schema, dropped afterwards.
    static func withSchema(
        _ prefix: String, size: Int = 4, _ body: (PostgresPool, String) async throws -> Void
    ) async throws {
        let pool = try await pool(size: size)
        let schema = schemaName(prefix)
        try await pool.withConnection { try await $0.simpleQuery("CREATE SCHEMA \(schema)") }
        do {
            try await body(pool, schema)
        } catch {
            try? await pool.withConnection { try await $0.simpleQuery("DROP SCHEMA \(schema) CASCADE") }
            await pool.close()
            throw error
        }
        try await pool.withConnection { try await $0.simpleQuery("DROP SCHEMA \(schema) CASCADE") }
        await pool.close()
    }
}

struct ExpectedFailure: Error {}

func elapsed(since start: ContinuousClock.Instant) -> Double {
    let d = ContinuousClock.now - start
    return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}
