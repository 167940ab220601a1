import Contracts
import Foundation
import Postgres
import PushAdapters
import Runtime
import Testing

/// Bootstrap (docs/COMPATIBILITY.md#push-tables) over tables left by an older version: election, triggers, backfill,
/// idempotence.
@Suite struct PushSchemaTests {
    @Test func bootstrapElectsOneRowPerTokenMutesTheRestAndIsIdempotent() async throws {
        let db = try await Stack.pool()
        let name = Stack.schemaName("boot")
        try await withCleanup(
            { try await bootstrapChecks(db, name) },
            cleanup: {
                await db.close()
                await Stack.dropSchema(name)
            })
    }

    func bootstrapChecks(_ db: PostgresPool, _ name: String) async throws {
        let schema = try PushSchema(name: name)
        let (t1, t2) = (Make.expoToken(), Make.expoToken())
        // The original's lazy DDL: no triggers, no delivery_group column, duplicate rows with live consent.
        try await db.withConnection { conn in
            try await conn.simpleQuery(
                """
                CREATE SCHEMA \(name);
                CREATE TABLE \(schema.tokens) (
                    id TEXT PRIMARY KEY, user_id TEXT NOT NULL, device_id TEXT, expo_token TEXT NOT NULL,
                    platform TEXT NOT NULL DEFAULT 'ios', prefs JSONB NOT NULL DEFAULT '{}'::jsonb,
                    last_seen_at TIMESTAMPTZ NOT NULL DEFAULT now(), created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                    UNIQUE (user_id, expo_token));
                CREATE TABLE \(schema.deliveries) (
                    claim_id TEXT PRIMARY KEY, token_id TEXT NOT NULL, user_id TEXT NOT NULL, expo_token TEXT NOT NULL,
                    dedupe_slot TEXT NOT NULL, dedupe_key TEXT NOT NULL, lease_until TIMESTAMPTZ NOT NULL,
                    claimed_at TIMESTAMPTZ NOT NULL DEFAULT now(), UNIQUE (token_id, dedupe_slot, dedupe_key));
                """)
        }
        let on = #"{"notifications_enabled": true, "daily_brief": true, "last_lat": 1.5}"#
        for (id, user, token, seen) in [
            ("push_a", "usr_a", t1, "2026-01-01"), ("push_b", "usr_b", t1, "2026-03-01"),
            ("push_c", "usr_c", t1, "2026-02-01"),
            ("push_d", "usr_d", t2, "2026-01-01"), ("push_e", "usr_e", t2, "2026-01-01"),
            ("push_f", "usr_f", t2, "2025-01-01"),
        ] {
            try await db.execute(
                """
                INSERT INTO \(unescaped: schema.tokens) (id, user_id, expo_token, prefs, last_seen_at)
                VALUES (\(id), \(user), \(token), \(PostgresJSON(id == "push_f" ? "[1]" : on)), \(seen)::timestamptz)
                """)
        }
        try await db.execute(
            """
            INSERT INTO \(unescaped: schema.deliveries) (claim_id, token_id, user_id, expo_token, dedupe_slot, dedupe_key, lease_until)
            VALUES ('old_claim', 'push_b', 'usr_b', \(t1), 's', 'k', now())
            """)

        for _ in 0..<2 {  // twice: the second run must change nothing
            try await schema.bootstrap(db, logger: Logger(label: "t", level: .error))
        }
        let claims = try await db.query(
            "SELECT expo_token, token_id, user_id FROM \(unescaped: schema.claims) ORDER BY token_id")
        #expect(claims.map { $0.string("token_id") } == ["push_b", "push_e"])  // most recent; tie → higher id
        #expect(try await count(db, "SELECT count(*) FROM \(unescaped: schema.tokens)") == 6)  // nothing deleted
        let rows = try await db.query(
            "SELECT id, prefs->>'notifications_enabled' AS on, prefs->>'daily_brief' AS daily, prefs->>'last_lat' AS lat FROM \(unescaped: schema.tokens) ORDER BY id"
        )
        for row in rows {
            let elected = ["push_b", "push_e"].contains(row.string("id") ?? "")
            #expect(row.string("on") == (elected ? "true" : "false"), "\(row.string("id") ?? "")")
            #expect(row.string("daily") == (elected ? "true" : "false"))
            if row.string("id") != "push_f" { #expect(row.string("lat") == "1.5") }  // only the flags are muted
        }
        #expect(
            try await count(
                db, "SELECT count(*) FROM \(unescaped: schema.deliveries) WHERE delivery_group = 'old_claim'") == 1)
        let triggers = try await db.query(
            """
            SELECT tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = \(name) AND NOT t.tgisinternal ORDER BY tgname
            """)
        #expect(
            triggers.map { $0.string("tgname") } == ["push_token_claims_mute_legacy", "push_tokens_mute_unclaimed"])

        // A mixed-version writer re-enabling an unclaimed row directly is muted again by the trigger …
        try await db.execute("UPDATE \(unescaped: schema.tokens) SET prefs = \(PostgresJSON(on)) WHERE id = 'push_a'")
        #expect(
            try await db.query("SELECT prefs->>'daily_brief' AS d FROM \(unescaped: schema.tokens) WHERE id = 'push_a'")
                .first?.string("d") == "false")
        // … and switching the claim directly mutes the previous owner's row.
        try await db.execute(
            "UPDATE \(unescaped: schema.claims) SET token_id = 'push_a', user_id = 'usr_a' WHERE expo_token = \(t1)")
        #expect(
            try await db.query("SELECT prefs->>'daily_brief' AS d FROM \(unescaped: schema.tokens) WHERE id = 'push_b'")
                .first?.string("d") == "false")
        // A tombstone survives restarts: no legacy row is promoted again.
        try await db.execute(
            "UPDATE \(unescaped: schema.claims) SET token_id = NULL, user_id = NULL WHERE expo_token = \(t2)")
        try await schema.bootstrap(db, logger: Logger(label: "t", level: .error))
        #expect(
            try await count(
                db, "SELECT count(*) FROM \(unescaped: schema.claims) WHERE expo_token = \(t2) AND token_id IS NULL")
                == 1)
    }

    @Test func concurrentBootstrapsSerialize() async throws {
        let db = try await Stack.pool(size: 6)
        let name = Stack.schemaName("race")
        let schema = try PushSchema(name: name)
        try await withCleanup(
            {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<5 {
                        group.addTask { try await schema.bootstrap(db, logger: Logger(label: "t", level: .error)) }
                    }
                    try await group.waitForAll()
                }
                #expect(
                    try await count(
                        db,
                        "SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = \(name) AND NOT t.tgisinternal"
                    ) == 2)
            },
            cleanup: {
                await db.close()
                await Stack.dropSchema(name)
            })
        #expect(throws: ConfigurationError.self) { try PushSchema(name: "Bad-Name") }
    }
}
