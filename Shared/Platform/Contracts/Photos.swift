/// Company photos (docs/COMPATIBILITY.md#company-photos): live-camera captures of a company's storefront, re-encoded
/// from their pixels (no EXIF, XMP or trailing bytes survive), stored by Identify, served by id.

/// One submission as the gallery and the vote show it. `photoUrl` is the gateway's `GET /v1/photos/{id}/image`.
public struct PhotoSubmission: Codable, Sendable, Equatable {
    public var id: String
    public var companyId: String
    public var userId: String
    public var handle: String?
    public var photoUrl: String
    public var lat: Double?
    public var lng: Double?
    public var exifTimestamp: String?
    public var serverReceivedAt: String
    public var score: Int
    public var isFirstCapture: Bool
    public var createdAt: String

    public init(
        id: String, companyId: String, userId: String, handle: String?, photoUrl: String, lat: Double?,
        lng: Double?, exifTimestamp: String?, serverReceivedAt: String, score: Int, isFirstCapture: Bool,
        createdAt: String
    ) {
        self.id = id
        self.companyId = companyId
        self.userId = userId
        self.handle = handle
        self.photoUrl = photoUrl
        self.lat = lat
        self.lng = lng
        self.exifTimestamp = exifTimestamp
        self.serverReceivedAt = serverReceivedAt
        self.score = score
        self.isFirstCapture = isFirstCapture
        self.createdAt = createdAt
    }
}

/// Who captured a company first (earliest server receipt time).
public struct FirstCapturedBy: Codable, Sendable, Equatable {
    public var userId: String
    public var at: String
    public var photoId: String
    public var handle: String?

    public init(userId: String, at: String, photoId: String, handle: String?) {
        self.userId = userId
        self.at = at
        self.photoId = photoId
        self.handle = handle
    }
}

/// `POST /v1/companies/{id}/photos`: 201 when this submission became the first capture, else 200 (replays too).
public struct PhotoCaptureResponse: Codable, Sendable, Equatable {
    public var photo: PhotoSubmission
    public var isFirstCapture: Bool
    public var firstCapturedBy: FirstCapturedBy?
    public var captureCount: Int

    public init(photo: PhotoSubmission, isFirstCapture: Bool, firstCapturedBy: FirstCapturedBy?, captureCount: Int) {
        self.photo = photo
        self.isFirstCapture = isFirstCapture
        self.firstCapturedBy = firstCapturedBy
        self.captureCount = captureCount
    }

    enum CodingKeys: String, CodingKey { case photo, isFirstCapture, firstCapturedBy, captureCount }

    /// `firstCapturedBy` is written as `null` when absent (the original's shape).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(photo, forKey: .photo)
        try container.encode(isFirstCapture, forKey: .isFirstCapture)
        try container.encode(firstCapturedBy, forKey: .firstCapturedBy)
        try container.encode(captureCount, forKey: .captureCount)
    }
}

/// `GET /v1/companies/{id}/photos`: first capture first, then score descending, then oldest first.
public struct PhotoGalleryResponse: Codable, Sendable, Equatable {
    public var companyId: String
    public var firstCapturedBy: FirstCapturedBy?
    public var captureCount: Int
    public var photos: [PhotoSubmission]

    public init(companyId: String, firstCapturedBy: FirstCapturedBy?, captureCount: Int, photos: [PhotoSubmission]) {
        self.companyId = companyId
        self.firstCapturedBy = firstCapturedBy
        self.captureCount = captureCount
        self.photos = photos
    }

    enum CodingKeys: String, CodingKey { case companyId, firstCapturedBy, captureCount, photos }

    /// `firstCapturedBy` is written as `null` when absent (the original's shape).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(companyId, forKey: .companyId)
        try container.encode(firstCapturedBy, forKey: .firstCapturedBy)
        try container.encode(captureCount, forKey: .captureCount)
        try container.encode(photos, forKey: .photos)
    }
}

/// `POST /v1/photos/{id}/vote`.
public struct PhotoVoteResponse: Codable, Sendable, Equatable {
    public var photo: PhotoSubmission

    public init(photo: PhotoSubmission) { self.photo = photo }
}

/// A vote's direction.
public enum PhotoVoteDirection: String, Codable, Sendable {
    case up, down

    /// What the vote adds to the photo's score.
    public var weight: Int { self == .up ? 1 : -1 }
}

/// The photo commands, sent by the gateway to Identify.
public enum PhotoCommandName {
    /// Keyed by the user id.
    public static let submit = "photos.submit.v1"
    /// Keyed by the company id.
    public static let gallery = "photos.gallery.v1"
    /// Keyed by the photo id.
    public static let vote = "photos.vote.v1"
    /// Keyed by the photo id.
    public static let delete = "photos.delete.v1"
    /// Keyed by the photo id: the JPEG bytes with cache headers.
    public static let image = "photos.image.v1"
}

/// A checked upload: the bytes wait in Redis under `photoKey` (the identify claim check), never on Kafka.
public struct SubmitPhotoCommand: Codable, Sendable, Equatable {
    public var userId: String
    public var handle: String?
    public var companyId: String
    public var idempotencyKey: String
    public var photoKey: String
    public var lat: Double
    public var lng: Double
    public var exifTimestamp: String?
    /// The gateway's public origin, for `photoUrl`.
    public var imageBase: String

    public init(
        userId: String, handle: String?, companyId: String, idempotencyKey: String, photoKey: String, lat: Double,
        lng: Double, exifTimestamp: String?, imageBase: String
    ) {
        self.userId = userId
        self.handle = handle
        self.companyId = companyId
        self.idempotencyKey = idempotencyKey
        self.photoKey = photoKey
        self.lat = lat
        self.lng = lng
        self.exifTimestamp = exifTimestamp
        self.imageBase = imageBase
    }
}

/// `GET /v1/companies/{id}/photos`; `imageBase` is the gateway's public origin, for `photoUrl`.
public struct PhotoGalleryCommand: Codable, Sendable, Equatable {
    public var companyId: String
    public var imageBase: String

    public init(companyId: String, imageBase: String) {
        self.companyId = companyId
        self.imageBase = imageBase
    }
}

/// `POST /v1/photos/{id}/vote`, `DELETE /v1/photos/{id}` (no direction) and `GET /v1/photos/{id}/image` (no user).
public struct PhotoCommand: Codable, Sendable, Equatable {
    public var photoId: String
    public var userId: String?
    public var direction: PhotoVoteDirection?
    /// The gateway's public origin, for `photoUrl` (the vote's answer).
    public var imageBase: String?

    public init(
        photoId: String, userId: String? = nil, direction: PhotoVoteDirection? = nil, imageBase: String? = nil
    ) {
        self.photoId = photoId
        self.userId = userId
        self.direction = direction
        self.imageBase = imageBase
    }
}
