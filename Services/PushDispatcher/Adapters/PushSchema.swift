import Contracts
import Postgres
import Runtime

/// The push tables (docs/COMPATIBILITY.md#push-tables) in the owner schema, and their bootstrap.
///
/// A row of `push_tokens` is deliverable, readable and writable only when joined to its claim:
/// `c.expo_token = p.expo_token AND c.token_id = p.id AND c.user_id = p.user_id`. `push_receipts` (ours, beyond the
/// contract) remembers Expo ticket ids until their receipts are polled.
public struct PushSchema: Sendable {
    /// The bootstrap's transaction advisory lock key (shared with the original, so mixed versions serialize).
    static let bootstrapLockKey = "mapvest.push-token-schema-v2"

    public let name: String
    /// Qualified table names, safe to splice into SQL.
    public let tokens: String
    public let claims: String
    public let deliveries: String
    public let receipts: String

    /// `name` must be a plain lower-case identifier.
    public init(name: String = "push") throws {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 40, first == UInt8(ascii: "_") || (97...122).contains(first),
            bytes.allSatisfy({ $0 == UInt8(ascii: "_") || (97...122).contains($0) || (48...57).contains($0) })
        else { throw ConfigurationError(key: "PUSH_SCHEMA", reason: "must match [a-z_][a-z0-9_]{0,39}") }
        self.name = name
        tokens = "\"\(name)\".push_tokens"
        claims = "\"\(name)\".push_token_claims"
        deliveries = "\"\(name)\".push_delivery_claims"
        receipts = "\"\(name)\".push_receipts"
    }

    /// The SQL expression that mutes `prefs`: non-objects become `{}`, then the ten consent flags are set to false.
    static var mutedFlagsJSON: String {
        "{" + PushWire.consentFlags.map { "\"\($0)\":false" }.joined(separator: ",") + "}"
    }

    /// Runs the whole bootstrap in ONE transaction under
    /// `pg_advisory_xact_lock(hashtextextended('mapvest.push-token-schema-v2', 0))`: schema, tables and indexes if
    /// missing (existing indexes are not touched, so no table lock is taken on a warm start), the `delivery_group`
    /// column added and backfilled if missing, both mute functions replaced (`CREATE OR REPLACE`, no enforcement gap),
    /// triggers created only if missing (never dropped), then the election of one claim per unclaimed token (most
    /// recent `last_seen_at`, tie → higher id) and the mute of every unclaimed row. No row is deleted.
    public func bootstrap(_ db: PostgresPool, logger: Logger) async throws {
        let s = "\"\(name)\""
        let muted = Self.mutedFlagsJSON
        let elected = try await db.transaction { conn -> Int in
            _ = try await conn.query("SELECT pg_advisory_xact_lock(hashtextextended(\(Self.bootstrapLockKey), 0))")
            if try await conn.query("SELECT 1 FROM pg_namespace WHERE nspname = \(name)").isEmpty {
                try await conn.simpleQuery("CREATE SCHEMA \(s)")
            }
            try await conn.simpleQuery(
                """
                CREATE TABLE IF NOT EXISTS \(tokens) (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL,
                    device_id TEXT,
                    expo_token TEXT NOT NULL,
                    platform TEXT NOT NULL DEFAULT 'ios',
                    prefs JSONB NOT NULL DEFAULT '{}'::jsonb,
                    last_seen_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                    UNIQUE (user_id, expo_token)
                ) WITH (fillfactor = 85);
                CREATE TABLE IF NOT EXISTS \(claims) (
                    expo_token TEXT PRIMARY KEY,
                    token_id TEXT,
                    user_id TEXT,
                    claimed_at TIMESTAMPTZ NOT NULL DEFAULT now()
                );
                CREATE TABLE IF NOT EXISTS \(deliveries) (
                    claim_id TEXT PRIMARY KEY,
                    delivery_group TEXT NOT NULL,
                    token_id TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    expo_token TEXT NOT NULL,
                    dedupe_slot TEXT NOT NULL,
                    dedupe_key TEXT NOT NULL,
                    lease_until TIMESTAMPTZ NOT NULL,
                    claimed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                    UNIQUE (token_id, dedupe_slot, dedupe_key)
                );
                CREATE TABLE IF NOT EXISTS \(receipts) (
                    batch_id TEXT PRIMARY KEY,
                    ticket_ids TEXT[] NOT NULL,
                    token_ids TEXT[] NOT NULL,
                    handed_off_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                    check_after TIMESTAMPTZ NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0
                );
                DO $$
                BEGIN
                    IF NOT EXISTS (
                        SELECT 1 FROM information_schema.columns
                        WHERE table_schema = '\(name)' AND table_name = 'push_delivery_claims'
                          AND column_name = 'delivery_group'
                    ) THEN
                        ALTER TABLE \(deliveries) ADD COLUMN delivery_group TEXT;
                        UPDATE \(deliveries) SET delivery_group = claim_id WHERE delivery_group IS NULL;
                        ALTER TABLE \(deliveries) ALTER COLUMN delivery_group SET NOT NULL;
                    END IF;
                    IF to_regclass('\(s).push_tokens_user_idx') IS NULL THEN
                        CREATE INDEX push_tokens_user_idx ON \(tokens) (user_id);
                    END IF;
                    IF to_regclass('\(s).push_tokens_last_seen_idx') IS NULL THEN
                        CREATE INDEX push_tokens_last_seen_idx ON \(tokens) (last_seen_at DESC);
                    END IF;
                    IF to_regclass('\(s).push_tokens_expo_token_idx') IS NULL THEN
                        CREATE INDEX push_tokens_expo_token_idx ON \(tokens) (expo_token);
                    END IF;
                    IF to_regclass('\(s).push_token_claims_user_idx') IS NULL THEN
                        CREATE INDEX push_token_claims_user_idx ON \(claims) (user_id);
                    END IF;
                    IF to_regclass('\(s).push_delivery_claims_lease_idx') IS NULL THEN
                        CREATE INDEX push_delivery_claims_lease_idx ON \(deliveries) (lease_until);
                    END IF;
                    IF to_regclass('\(s).push_delivery_claims_expo_token_idx') IS NULL THEN
                        CREATE INDEX push_delivery_claims_expo_token_idx ON \(deliveries) (expo_token);
                    END IF;
                    IF to_regclass('\(s).push_delivery_claims_group_idx') IS NULL THEN
                        CREATE INDEX push_delivery_claims_group_idx ON \(deliveries) (delivery_group);
                    END IF;
                    IF to_regclass('\(s).push_receipts_check_idx') IS NULL THEN
                        CREATE INDEX push_receipts_check_idx ON \(receipts) (check_after);
                    END IF;
                END $$;

                CREATE OR REPLACE FUNCTION \(s).mapvest_muted_push_prefs(jsonb) RETURNS jsonb
                LANGUAGE sql IMMUTABLE AS $$
                    SELECT (CASE WHEN jsonb_typeof($1) = 'object' THEN $1 ELSE '{}'::jsonb END) || '\(muted)'::jsonb
                $$;

                CREATE OR REPLACE FUNCTION \(s).mapvest_mute_unclaimed_push_token() RETURNS trigger
                LANGUAGE plpgsql AS $$
                BEGIN
                    IF NOT EXISTS (
                        SELECT 1 FROM \(claims) c
                        WHERE c.expo_token = NEW.expo_token AND c.token_id = NEW.id AND c.user_id = NEW.user_id
                    ) THEN
                        NEW.prefs := \(s).mapvest_muted_push_prefs(NEW.prefs);
                    END IF;
                    RETURN NEW;
                END
                $$;

                CREATE OR REPLACE FUNCTION \(s).mapvest_mute_unclaimed_push_rows() RETURNS trigger
                LANGUAGE plpgsql AS $$
                DECLARE
                    affected text[];
                BEGIN
                    IF TG_OP = 'DELETE' THEN
                        affected := ARRAY[OLD.expo_token];
                    ELSIF TG_OP = 'UPDATE' THEN
                        affected := ARRAY[OLD.expo_token, NEW.expo_token];
                    ELSE
                        affected := ARRAY[NEW.expo_token];
                    END IF;
                    UPDATE \(tokens) p
                       SET prefs = \(s).mapvest_muted_push_prefs(p.prefs)
                     WHERE p.expo_token = ANY(affected)
                       AND NOT EXISTS (
                           SELECT 1 FROM \(claims) c
                           WHERE c.expo_token = p.expo_token AND c.token_id = p.id AND c.user_id = p.user_id)
                       AND p.prefs IS DISTINCT FROM \(s).mapvest_muted_push_prefs(p.prefs);
                    RETURN NULL;
                END
                $$;

                DO $$
                BEGIN
                    IF NOT EXISTS (
                        SELECT 1 FROM pg_trigger
                        WHERE tgname = 'push_tokens_mute_unclaimed' AND tgrelid = '\(tokens)'::regclass AND NOT tgisinternal
                    ) THEN
                        CREATE TRIGGER push_tokens_mute_unclaimed
                            BEFORE INSERT OR UPDATE OF prefs ON \(tokens)
                            FOR EACH ROW EXECUTE FUNCTION \(s).mapvest_mute_unclaimed_push_token();
                    END IF;
                    IF NOT EXISTS (
                        SELECT 1 FROM pg_trigger
                        WHERE tgname = 'push_token_claims_mute_legacy' AND tgrelid = '\(claims)'::regclass AND NOT tgisinternal
                    ) THEN
                        CREATE TRIGGER push_token_claims_mute_legacy
                            AFTER INSERT OR UPDATE OR DELETE ON \(claims)
                            FOR EACH ROW EXECUTE FUNCTION \(s).mapvest_mute_unclaimed_push_rows();
                    END IF;
                END $$;
                """)
            let elected = try await conn.execute(
                """
                INSERT INTO \(unescaped: claims) (expo_token, token_id, user_id, claimed_at)
                SELECT DISTINCT ON (p.expo_token) p.expo_token, p.id, p.user_id, now()
                  FROM \(unescaped: tokens) p
                 WHERE NOT EXISTS (SELECT 1 FROM \(unescaped: claims) c WHERE c.expo_token = p.expo_token)
                 ORDER BY p.expo_token, p.last_seen_at DESC, p.id DESC
                ON CONFLICT (expo_token) DO NOTHING
                """)
            try await conn.execute(
                """
                UPDATE \(unescaped: tokens) p
                   SET prefs = \(unescaped: s).mapvest_muted_push_prefs(p.prefs)
                 WHERE NOT EXISTS (
                       SELECT 1 FROM \(unescaped: claims) c
                       WHERE c.expo_token = p.expo_token AND c.token_id = p.id AND c.user_id = p.user_id)
                   AND p.prefs IS DISTINCT FROM \(unescaped: s).mapvest_muted_push_prefs(p.prefs)
                """)
            return elected
        }
        logger.info("push schema ready", [LogKeys.dbSchema: .string(name), LogKeys.pushElectedClaims: .int(elected)])
    }
}
