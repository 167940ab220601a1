import Contracts
import Foundation
import IdentifyCore
import Postgres
import Runtime

/// A submission's own row was not readable inside its transaction (it rolls back; the command is retried).
struct PhotoRowMissing: Error {}

/// Company photos in Identify's schema (migration 50): the re-encoded JPEG (`bytea`) with its submission, each
/// company's capture count and first capture, and one vote row per user and photo. Deletes and votes are scoped by
/// id; a delete also by its owner, so another user's id behaves as no id at all.
struct CompanyPhotoStore: Sendable {
    let db: PostgresPool

    /// What a submit did: the row, the company's state after it, and whether it was a replay of the same key.
    struct Submitted: Sendable {
        var photo: PhotoSubmission
        var firstCapturedBy: FirstCapturedBy?
        var captureCount: Int
        var replay: Bool
    }

    /// A new submission, before it is stored.
    struct NewPhoto: Sendable {
        var command: SubmitPhotoCommand
        var jpeg: [UInt8]
        var width: Int
        var height: Int
        var receivedAt: Date
    }

    static let migrations: [Migration] = [
        Migration(
            version: 50, name: "company photos",
            sql: """
                CREATE TABLE IF NOT EXISTS identify.photo_submissions (
                    id UUID PRIMARY KEY,
                    company_id TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    handle TEXT,
                    image BYTEA NOT NULL,
                    width INT NOT NULL,
                    height INT NOT NULL,
                    lat DOUBLE PRECISION,
                    lng DOUBLE PRECISION,
                    exif_timestamp TEXT,
                    server_received_at TIMESTAMPTZ NOT NULL,
                    client_request_id TEXT NOT NULL,
                    score INT NOT NULL DEFAULT 0,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                    UNIQUE (user_id, client_request_id)
                );
                CREATE INDEX IF NOT EXISTS photo_submissions_gallery_idx
                    ON identify.photo_submissions (company_id, score DESC, created_at ASC);
                CREATE TABLE IF NOT EXISTS identify.company_captures (
                    company_id TEXT PRIMARY KEY,
                    first_captured_photo_id UUID,
                    capture_count INT NOT NULL DEFAULT 0
                );
                CREATE TABLE IF NOT EXISTS identify.photo_votes (
                    photo_id UUID NOT NULL REFERENCES identify.photo_submissions (id) ON DELETE CASCADE,
                    user_id TEXT NOT NULL,
                    direction SMALLINT NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                    PRIMARY KEY (photo_id, user_id)
                );
                """)
    ]

    private static let columns = """
        id::text AS id, company_id, user_id, handle, lat, lng, exif_timestamp, score,
        EXTRACT(EPOCH FROM server_received_at)::float8 AS received_epoch,
        EXTRACT(EPOCH FROM created_at)::float8 AS created_epoch
        """

    /// Stores the photo unless the user already sent this `Idempotency-Key` (then the stored one, untouched). The
    /// company's row is locked first, so the earliest server receipt time wins the first capture across replicas.
    func submit(_ new: NewPhoto, imageBase: String) async throws -> Submitted {
        let command = new.command
        return try await db.transaction { connection in
            try await connection.execute(
                """
                INSERT INTO identify.company_captures (company_id) VALUES (\(command.companyId))
                ON CONFLICT (company_id) DO NOTHING
                """)
            _ = try await connection.query(
                "SELECT 1 AS one FROM identify.company_captures WHERE company_id = \(command.companyId) FOR UPDATE")
            let inserted = try await connection.query(
                """
                INSERT INTO identify.photo_submissions (id, company_id, user_id, handle, image, width, height, lat, lng,
                    exif_timestamp, server_received_at, client_request_id, created_at)
                VALUES (\(UUID().uuidString.lowercased())::uuid, \(command.companyId), \(command.userId),
                    \(command.handle), \(new.jpeg), \(new.width), \(new.height), \(command.lat), \(command.lng),
                    \(command.exifTimestamp), \(new.receivedAt), \(command.idempotencyKey), \(new.receivedAt))
                ON CONFLICT (user_id, client_request_id) DO NOTHING
                RETURNING id::text AS id
                """)
            let replay = inserted.isEmpty
            if let id = inserted.first?.string("id") {
                // First capture: the earliest receipt time among the company's photos (this one unless an earlier
                // one is already recorded).
                try await connection.execute(
                    """
                    UPDATE identify.company_captures c SET capture_count = c.capture_count + 1,
                        first_captured_photo_id = CASE
                            WHEN c.first_captured_photo_id IS NULL THEN \(id)::uuid
                            WHEN (SELECT server_received_at FROM identify.photo_submissions
                                  WHERE id = c.first_captured_photo_id) > \(new.receivedAt) THEN \(id)::uuid
                            ELSE c.first_captured_photo_id END
                    WHERE c.company_id = \(command.companyId)
                    """)
            }
            guard
                let row = try await connection.query(
                    """
                    SELECT \(unescaped: Self.columns) FROM identify.photo_submissions
                    WHERE user_id = \(command.userId) AND client_request_id = \(command.idempotencyKey)
                    """
                ).first
            else { throw PhotoRowMissing() }
            let capture = try await Self.capture(connection, companyId: row.string("company_id") ?? "")
            guard var photo = Self.photo(row, imageBase: imageBase) else { throw PhotoRowMissing() }
            photo.isFirstCapture = capture.first?.photoId == photo.id
            return Submitted(
                photo: photo, firstCapturedBy: capture.first, captureCount: capture.count, replay: replay)
        }
    }

    /// The company's gallery, ordered by `PhotoRules.galleryOrder`.
    func gallery(companyId: String, imageBase: String) async throws -> PhotoGalleryResponse {
        try await db.transaction { connection in
            let capture = try await Self.capture(connection, companyId: companyId)
            let rows = try await connection.query(
                """
                SELECT \(unescaped: Self.columns) FROM identify.photo_submissions WHERE company_id = \(companyId)
                ORDER BY score DESC, created_at ASC, id LIMIT \(PhotoRules.maxGallery)
                """)
            let photos = PhotoRules.galleryOrder(
                rows.compactMap { Self.photo($0, imageBase: imageBase) }, firstPhotoId: capture.first?.photoId)
            return PhotoGalleryResponse(
                companyId: companyId, firstCapturedBy: capture.first, captureCount: capture.count, photos: photos)
        }
    }

    /// Records the user's vote (one per user and photo: a second vote replaces the first, never adds to it) and
    /// recomputes the score from the votes; nil when no such photo.
    func vote(photoId: String, userId: String, direction: PhotoVoteDirection, imageBase: String) async throws
        -> PhotoSubmission?
    {
        guard let id = Self.uuid(photoId) else { return nil }
        return try await db.transaction { connection -> PhotoSubmission? in
            guard
                !(try await connection.query(
                    "SELECT 1 AS one FROM identify.photo_submissions WHERE id = \(id)::uuid FOR UPDATE")).isEmpty
            else { return nil }
            try await connection.execute(
                """
                INSERT INTO identify.photo_votes (photo_id, user_id, direction)
                VALUES (\(id)::uuid, \(userId), \(direction.weight))
                ON CONFLICT (photo_id, user_id) DO UPDATE SET direction = EXCLUDED.direction
                """)
            guard
                let row = try await connection.query(
                    """
                    UPDATE identify.photo_submissions SET score =
                        (SELECT COALESCE(SUM(direction), 0) FROM identify.photo_votes WHERE photo_id = \(id)::uuid)
                    WHERE id = \(id)::uuid RETURNING \(unescaped: Self.columns)
                    """
                ).first, var photo = Self.photo(row, imageBase: imageBase)
            else { return nil }
            let capture = try await Self.capture(connection, companyId: photo.companyId)
            photo.isFirstCapture = capture.first?.photoId == photo.id
            return photo
        }
    }

    /// Deletes the user's photo (its votes go with it) and hands the company's first capture to the earliest
    /// remaining photo when it was this one; false when the id is not one of the user's photos.
    func delete(photoId: String, userId: String) async throws -> Bool {
        guard let id = Self.uuid(photoId) else { return false }
        return try await db.transaction { connection in
            guard
                let companyId = try await connection.query(
                    """
                    DELETE FROM identify.photo_submissions WHERE id = \(id)::uuid AND user_id = \(userId)
                    RETURNING company_id
                    """
                ).first?.string("company_id")
            else { return false }
            try await connection.execute(
                """
                UPDATE identify.company_captures c SET capture_count = GREATEST(c.capture_count - 1, 0),
                    first_captured_photo_id = CASE WHEN c.first_captured_photo_id = \(id)::uuid THEN
                        (SELECT p.id FROM identify.photo_submissions p WHERE p.company_id = c.company_id
                         ORDER BY p.server_received_at, p.id LIMIT 1)
                        ELSE c.first_captured_photo_id END
                WHERE c.company_id = \(companyId)
                """)
            return true
        }
    }

    /// The stored JPEG; nil when no such photo.
    func image(photoId: String) async throws -> [UInt8]? {
        guard let id = Self.uuid(photoId) else { return nil }
        return try await db.query("SELECT image FROM identify.photo_submissions WHERE id = \(id)::uuid").first?
            .bytes("image")
    }

    /// The company's capture count and first capture (with the first photo's submitter).
    private static func capture(_ connection: PostgresConnection, companyId: String) async throws
        -> (count: Int, first: FirstCapturedBy?)
    {
        guard
            let row = try await connection.query(
                """
                SELECT c.capture_count, p.id::text AS photo_id, p.user_id, p.handle,
                    EXTRACT(EPOCH FROM p.server_received_at)::float8 AS received_epoch
                FROM identify.company_captures c
                LEFT JOIN identify.photo_submissions p ON p.id = c.first_captured_photo_id
                WHERE c.company_id = \(companyId)
                """
            ).first
        else { return (0, nil) }
        let count = row.int("capture_count") ?? 0
        guard let photoId = row.string("photo_id"), let userId = row.string("user_id"),
            let received = row.double("received_epoch")
        else { return (count, nil) }
        return (
            count,
            FirstCapturedBy(
                userId: userId, at: Timestamp.iso8601(Date(timeIntervalSince1970: received)), photoId: photoId,
                handle: row.string("handle"))
        )
    }

    /// The id in canonical form, or nil when it is not a UUID (so it names no row).
    private static func uuid(_ id: String) -> String? { UUID(uuidString: id).map { $0.uuidString.lowercased() } }

    private static func photo(_ row: PostgresRow, imageBase: String) -> PhotoSubmission? {
        guard let id = row.string("id"), let companyId = row.string("company_id"), let userId = row.string("user_id"),
            let received = row.double("received_epoch"), let created = row.double("created_epoch")
        else { return nil }
        return PhotoSubmission(
            id: id, companyId: companyId, userId: userId, handle: row.string("handle"),
            photoUrl: PhotoRules.imageURL(base: imageBase, photoId: id), lat: row.double("lat"),
            lng: row.double("lng"), exifTimestamp: row.string("exif_timestamp"),
            serverReceivedAt: Timestamp.iso8601(Date(timeIntervalSince1970: received)), score: row.int("score") ?? 0,
            isFirstCapture: false, createdAt: Timestamp.iso8601(Date(timeIntervalSince1970: created)))
    }
}
