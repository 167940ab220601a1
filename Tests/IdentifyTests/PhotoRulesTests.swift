import Contracts
import IdentifyCore
import Testing

/// The gallery's order and the photo URL, without a server.
struct PhotoRulesTests {
    static func photo(_ id: String, score: Int, created: String) -> PhotoSubmission {
        PhotoSubmission(
            id: id, companyId: "SBUX", userId: "u", handle: nil, photoUrl: "", lat: nil, lng: nil, exifTimestamp: nil,
            serverReceivedAt: created, score: score, isFirstCapture: true, createdAt: created)
    }

    @Test func firstCaptureFirstThenScoreThenOldest() {
        let photos = [
            Self.photo("a", score: 1, created: "2026-12-01T10:00:00.000Z"),
            Self.photo("b", score: 5, created: "2026-12-02T10:00:00.000Z"),
            Self.photo("c", score: 1, created: "2026-11-30T10:00:00.000Z"),
            Self.photo("d", score: -2, created: "2026-11-01T10:00:00.000Z"),
        ]
        let ordered = PhotoRules.galleryOrder(photos, firstPhotoId: "d")
        #expect(ordered.map(\.id) == ["d", "b", "c", "a"])
        #expect(ordered.map(\.isFirstCapture) == [true, false, false, false])
        #expect(PhotoRules.galleryOrder(photos, firstPhotoId: nil).map(\.id) == ["b", "c", "a", "d"])
    }

    @Test func imageURLUnderTheOrigin() {
        let url = PhotoRules.imageURL(base: "https://api.example.com//", photoId: "p1")
        #expect(url == "https://api.example.com/v1/photos/p1/image")
        #expect(PhotoRules.imageURL(base: "", photoId: "p1") == "/v1/photos/p1/image")
    }
}
