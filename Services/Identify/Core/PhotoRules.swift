import Contracts

/// Company photos' decisions, free of I/O: the answers' errors, where a photo is served, the gallery's order and the
/// headers a served photo carries.
public enum PhotoRules {
    public static let notFound = APIError(404, "photo not found")
    public static let undecodable = APIError(415, "image could not be decoded (expected JPEG, PNG or WebP)")
    public static let encoderBusy = APIError(503, "photo encoder busy; try again shortly")
    public static let uploadExpired = APIError(503, "uploaded photo expired before it was stored; send it again")
    /// The most photos one gallery answer lists (the original has no paging; bytes are not inline here).
    public static let maxGallery = 500

    /// A served photo never changes under its id (a delete removes it): caches may keep it a day.
    public static let imageHeaders: [(String, String)] = [
        ("Content-Type", "image/jpeg"), ("Cache-Control", "public, max-age=86400, immutable"),
        ("X-Content-Type-Options", "nosniff"),
    ]
    /// Marks a replayed submission (same user and `Idempotency-Key`): the gateway gives back its quota hold.
    public static let replayHeader = ("Idempotent-Replayed", "true")

    /// `GET /v1/photos/{id}/image` under the gateway's public origin.
    public static func imageURL(base: String, photoId: String) -> String {
        var origin = base
        while origin.hasSuffix("/") { origin.removeLast() }
        return origin + "/v1/photos/" + photoId + "/image"
    }

    /// The gallery's order: the first capture first, then score descending, then oldest first (ids break ties);
    /// `isFirstCapture` set on the first capture only.
    public static func galleryOrder(_ photos: [PhotoSubmission], firstPhotoId: String?) -> [PhotoSubmission] {
        photos.map { photo in
            var marked = photo
            marked.isFirstCapture = photo.id == firstPhotoId
            return marked
        }.sorted { a, b in
            if a.isFirstCapture != b.isFirstCapture { return a.isFirstCapture }
            if a.score != b.score { return a.score > b.score }
            if a.createdAt != b.createdAt { return a.createdAt < b.createdAt }
            return a.id < b.id
        }
    }
}
