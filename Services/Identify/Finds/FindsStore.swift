import Contracts
import Crypto
import Finance
import Foundation
import Geo
import Postgres
import Runtime

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
                """)
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

    /// Records a find unless the user already has one with the same identity; returns the stored row either way
    /// and whether it was new.
    func record(userId: String, _ input: RecordFindInput) async throws -> (find: Find, inserted: Bool) {
        let geohash = input.lat.flatMap { lat in input.lng.flatMap { Geohash.encode(lat: lat, lng: $0) } }
        let createdAt = input.createdAt.flatMap(Timestamp.parse) ?? Date()
        // Symbols are stored as the identity key reads them: trimmed, upper case.
        let ticker = Self.symbol(input.ticker)
        let comparable = Self.symbol(input.comparable)
        let inserted = try await db.query(
            """
            INSERT INTO identify.user_finds
                (id, user_id, brand, ticker, is_public, comparable, confidence, lat, lng, found_price, geohash6, created_at)
            VALUES (\(Digest.uuid())::uuid, \(userId), \(input.brand), \(ticker), \(input.isPublic),
                    \(comparable), \(input.confidence.rawValue), \(input.lat), \(input.lng), \(input.foundPrice),
                    \(geohash), \(createdAt))
            ON CONFLICT (user_id, identity_key) DO NOTHING
            RETURNING \(unescaped: Self.columns)
            """)
        if let row = inserted.first, let find = Self.find(row) { return (find, true) }
        let existing = try await db.query(
            """
            SELECT \(unescaped: Self.columns) FROM identify.user_finds
            WHERE user_id = \(userId)
              AND identity_key = COALESCE(NULLIF(UPPER(TRIM(\(ticker))), ''), NULLIF(UPPER(TRIM(\(comparable))), ''),
                                          UPPER(TRIM(\(input.brand))))
            """)
        guard let row = existing.first, let find = Self.find(row) else { throw FindsError.vanished }
        return (find, false)
    }

    /// The journal, newest first, one row per identity.
    func list(userId: String, limit: Int) async throws -> [Find] {
        try await db.query(
            """
            SELECT \(unescaped: Self.columns) FROM identify.user_finds WHERE user_id = \(userId)
            ORDER BY created_at DESC, id DESC LIMIT \(limit)
            """
        ).compactMap(Self.find)
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
            let tile = row.string("geohash6") ?? find.lat.flatMap { lat in find.lng.flatMap { Geohash.encode(lat: lat, lng: $0) } }
            return (find, tile)
        }
    }

    /// A stored replay answer for this key: its request hash and response body.
    func replay(userId: String, key: String) async throws -> (requestSHA: String, response: [UInt8])? {
        guard
            let row = try await db.query(
                """
                SELECT request_sha, response::text AS response FROM identify.finds_replays
                WHERE user_id = \(userId) AND idempotency_key = \(key)
                """
            ).first, let sha = row.string("request_sha"), let response = row.string("response")
        else { return nil }
        return (sha, Array(response.utf8))
    }

    /// Remembers a replay answer; the first writer of a key wins.
    func rememberReplay(userId: String, key: String, requestSHA: String, response: [UInt8]) async throws {
        _ = try await db.execute(
            """
            INSERT INTO identify.finds_replays (user_id, idempotency_key, request_sha, response)
            VALUES (\(userId), \(key), \(requestSHA), \(PostgresJSON(String(decoding: response, as: UTF8.self))))
            ON CONFLICT DO NOTHING
            """)
    }

    static func symbol(_ raw: String?) -> String? {
        guard let trimmed = raw?.trimmingCharacters(in: .whitespaces).uppercased(), !trimmed.isEmpty else { return nil }
        return trimmed
    }

    enum FindsError: Error { case vanished }
}
