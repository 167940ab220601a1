import Contracts
import Crypto
import Finance
import Foundation
import Geo
import IdentifyCore
import Postgres
import Runtime
import ServiceKit

/// The finds journal (`identify.user_finds`), owned by Identify. One row per identity per user, enforced by a unique
/// index on the identity key, so recording is idempotent under retries and concurrent replays.
struct FindsStore: Sendable {
    let db: PostgresPool

    static let migrations: [Migration] = [
        Migration(
            version: 1, name: "user finds",
            sql: """
                CREATE TABLE IF NOT EXISTS identify.user_finds (
                    id UUID PRIMARY KEY,
                    user_id TEXT NOT NULL,
                    brand TEXT NOT NULL,
                    ticker TEXT,
                    is_public BOOLEAN,
                    comparable TEXT,
                    confidence TEXT NOT NULL,
                    lat DOUBLE PRECISION,
                    lng DOUBLE PRECISION,
                    found_price DOUBLE PRECISION,
                    geohash6 TEXT,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                    identity_key TEXT GENERATED ALWAYS AS (
                        COALESCE(NULLIF(UPPER(TRIM(ticker)), ''), NULLIF(UPPER(TRIM(comparable)), ''), UPPER(TRIM(brand)))
                    ) STORED
                );
                CREATE UNIQUE INDEX IF NOT EXISTS user_finds_identity_idx ON identify.user_finds (user_id, identity_key);
                CREATE INDEX IF NOT EXISTS user_finds_recent_idx ON identify.user_finds (user_id, created_at DESC);
                CREATE INDEX IF NOT EXISTS user_finds_tile_idx ON identify.user_finds (user_id, geohash6);
                CREATE TABLE IF NOT EXISTS identify.finds_replays (
                    user_id TEXT NOT NULL,
                    idempotency_key TEXT NOT NULL,
                    request_sha TEXT NOT NULL,
                    response JSONB NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                    PRIMARY KEY (user_id, idempotency_key)
                );
                """),
        // The answer's exact bytes (JSONB normalizes key order and spacing, so replays were not byte-identical).
        Migration(
            version: 2, name: "replay answer bytes",
            sql: "ALTER TABLE identify.finds_replays ADD COLUMN IF NOT EXISTS response_body TEXT"),
    ]

    private static let columns = """
        id::text AS id, brand, ticker, is_public, comparable, confidence, lat, lng, found_price, geohash6,
        to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_iso
        """

    /// A row as the API shows it, with rarity stamped on read.
    static func find(_ row: PostgresRow) -> Find? {
        guard let id = row.string("id"), let brand = row.string("brand"), let created = row.string("created_iso") else {
            return nil
        }
        let ticker = row.string("ticker")
        let comparable = row.string("comparable")
        let isPublic = row.bool("is_public")
        return Find(
            id: id, brand: brand, ticker: ticker, isPublic: isPublic, comparable: comparable,
            confidence: Confidence(rawValue: row.string("confidence") ?? "") ?? .low, lat: row.double("lat"),
            lng: row.double("lng"), foundPrice: row.double("found_price"), createdAt: created,
            rarity: RarityClassifier.classify(ticker: ticker, comparable: comparable, isPublic: isPublic))
    }

    /// Stages a new find's announcement in the recording transaction (an outbox row) and returns it.
    typealias Announce = @Sendable (Find, PostgresConnection) async throws -> OutboxEntry

    /// Records finds in one transaction, unless the user already has one with the same identity, and applies their
    /// progression (docs/COMPATIBILITY.md#record-find: every find, re-catches too, bumps streak and XP under
    /// `awardKey:<index>`; see `ProgressStore`). `announce` stages each new find's event in the same transaction, so an
    /// event exists exactly when its find committed; the staged entries are returned for relaying after COMMIT.
    func record(userId: String, _ inputs: [RecordFindInput], awardKey: String, announce: @escaping Announce)
        async throws -> [OutboxEntry]
    {
        try await db.transaction { connection in
            try await Self.record(on: connection, userId: userId, inputs, awardKey: awardKey, announce: announce)
        }
    }

    /// Inserts in identity order, so two transactions recording overlapping finds wait on each other instead of
    /// deadlocking, then locks the user's progress row and applies the awards.
    private static func record(
        on connection: PostgresConnection, userId: String, _ inputs: [RecordFindInput], awardKey: String,
        announce: Announce
    ) async throws -> [OutboxEntry] {
        let now = Date()
        var awards: [FindAward] = []
        var staged: [OutboxEntry] = []
        var captures: [CoopPool.Capture] = []
        for (index, input) in inputs.enumerated().sorted(by: {
            FindIdentity.key($0.element) < FindIdentity.key($1.element)
        }) {
            let geohash = input.lat.flatMap { lat in input.lng.flatMap { Geohash.encode(lat: lat, lng: $0) } }
            let createdAt = input.createdAt.flatMap(Timestamp.parse) ?? now
            // A catch time from the future counts for today.
            awards.append(
                FindAward(
                    key: "\(awardKey):\(index)", day: ProgressRules.day(min(createdAt, now)), tile: geohash,
                    sector: XPEvents.seedSector(ticker: input.ticker, comparable: input.comparable)))
            // Symbols are stored as the identity key reads them: trimmed, upper case.
            let ticker = FindIdentity.symbol(input.ticker)
            let comparable = FindIdentity.symbol(input.comparable)
            let inserted = try await connection.query(
                """
                INSERT INTO identify.user_finds
                    (id, user_id, brand, ticker, is_public, comparable, confidence, lat, lng, found_price, geohash6,
                     created_at)
                VALUES (\(Digest.uuid())::uuid, \(userId), \(input.brand), \(ticker), \(input.isPublic),
                        \(comparable), \(input.confidence.rawValue), \(input.lat), \(input.lng), \(input.foundPrice),
                        \(geohash), \(createdAt))
                ON CONFLICT (user_id, identity_key) DO NOTHING
                RETURNING \(unescaped: columns)
                """)
            if let row = inserted.first, let find = find(row) {
                staged.append(try await announce(find, connection))
                if let geohash { captures.append(CoopPool.Capture(tile: geohash, createdAt: createdAt)) }
            }
        }
        try await CoopPool.settle(on: connection, userId: userId, captures: captures)
        try await ProgressStore.apply(
            on: connection, userId: userId, awards: awards.sorted { ($0.day, $0.key) < ($1.day, $1.key) })
        return staged
    }

    /// The journal, newest first, one row per identity.
    func list(userId: String, limit: Int) async throws -> [Find] {
        try await db.withConnection { try await Self.list(on: $0, userId: userId, limit: limit) }
    }

    private static func list(on connection: PostgresConnection, userId: String, limit: Int) async throws -> [Find] {
        try await connection.query(
            """
            SELECT \(unescaped: columns) FROM identify.user_finds WHERE user_id = \(userId)
            ORDER BY created_at DESC, id DESC LIMIT \(limit)
            """
        ).compactMap(find)
    }

    /// Geohash-6 tiles of the user's finds (legacy rows without one are computed from coordinates).
    func rows(userId: String, limit: Int) async throws -> [(find: Find, geohash6: String?)] {
        try await db.query(
            """
            SELECT \(unescaped: Self.columns) FROM identify.user_finds WHERE user_id = \(userId)
            ORDER BY created_at DESC LIMIT \(limit)
            """
        ).compactMap { row in
            guard let find = Self.find(row) else { return nil }
            let tile =
                row.string("geohash6")
                ?? find.lat.flatMap { lat in find.lng.flatMap { Geohash.encode(lat: lat, lng: $0) } }
            return (find, tile)
        }
    }

    /// How a guest replay was answered.
    enum ReplayOutcome: Sendable {
        /// Recorded now; the body is the journal after it (and, with a key, the stored answer).
        case answered([UInt8])
        /// The key was used before with this body: its stored answer, byte for byte.
        case replayed([UInt8])
        /// The key was used before with another body.
        case conflict
    }

    /// A guest replay, decided atomically per `Idempotency-Key`: in one transaction the key and body hash are claimed
    /// first (`INSERT … ON CONFLICT DO NOTHING`, which waits for a concurrent claim of the same key to commit or roll
    /// back), then the finds are recorded and the answer's exact bytes are stored with the claim. A lost claim reads
    /// the winner's stored answer. Without a key, only the recording runs. Returns the entries staged by `announce`.
    func replay(
        userId: String, key: String?, requestSHA: String, _ inputs: [RecordFindInput], awardKey: String,
        announce: @escaping Announce
    ) async throws -> (ReplayOutcome, [OutboxEntry]) {
        try await db.transaction { connection in
            if let key {
                let claimed = try await connection.query(
                    """
                    INSERT INTO identify.finds_replays (user_id, idempotency_key, request_sha, response)
                    VALUES (\(userId), \(key), \(requestSHA), '{}'::jsonb)
                    ON CONFLICT (user_id, idempotency_key) DO NOTHING
                    RETURNING 1 AS claimed
                    """)
                if claimed.isEmpty {
                    let stored = try await connection.query(
                        """
                        SELECT request_sha, COALESCE(response_body, response::text) AS body FROM identify.finds_replays
                        WHERE user_id = \(userId) AND idempotency_key = \(key)
                        """)
                    guard let row = stored.first, let sha = row.string("request_sha"), let body = row.string("body")
                    else { throw FindsError.vanished }
                    return (sha == requestSHA ? .replayed(Array(body.utf8)) : .conflict, [])
                }
            }
            let staged = try await Self.record(
                on: connection, userId: userId, inputs, awardKey: awardKey, announce: announce)
            let body = Array(
                try JSONEncoder().encode(
                    FindsResponse(finds: try await Self.list(on: connection, userId: userId, limit: 200))))
            if let key {
                let text = String(decoding: body, as: UTF8.self)
                try await connection.execute(
                    """
                    UPDATE identify.finds_replays SET response = \(PostgresJSON(text)), response_body = \(text)
                    WHERE user_id = \(userId) AND idempotency_key = \(key)
                    """)
            }
            return (.answered(body), staged)
        }
    }

    enum FindsError: Error { case vanished }
}
