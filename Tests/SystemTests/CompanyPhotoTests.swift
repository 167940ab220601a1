import Contracts
import Foundation
import HTTPClient
import TestSupport
import Testing

extension SystemTests {
    /// Company photos through the whole system (docs/COMPATIBILITY.md#company-photos): a JPEG carrying GPS EXIF, XMP
    /// and an appended script comes back as pixels only; the original's refusals; one vote per user and photo; only
    /// the owner deletes.
    @Suite struct CompanyPhotoTests {
        static func upload(
            _ gateway: GatewayProcess, _ token: String, company: String, image: [UInt8], key: String? = "k-1",
            fields: [(String, String)] = [("captureSource", "camera"), ("location", #"{"lat":40.74,"lng":-73.99}"#)]
        ) async throws -> HTTPClientResponse {
            var form = MultipartBody()
            form.addFile(name: "image", filename: "shop.jpg", contentType: "image/jpeg", data: image)
            for (name, value) in fields { form.addText(name: name, value: value) }
            var headers = [("Content-Type", form.contentType), ("Authorization", "Bearer \(token)")]
            if let key { headers.append(("Idempotency-Key", key)) }
            return try await testHTTPClient.execute(
                HTTPClientRequest(
                    method: "POST", url: gateway.baseURL + "/v1/companies/\(company)/photos", headers: headers,
                    body: form.finished(), timeout: .seconds(30)))
        }

        static func capture(_ response: HTTPClientResponse) throws -> PhotoCaptureResponse {
            try JSONDecoder().decode(PhotoCaptureResponse.self, from: Data(response.body))
        }

        static func gallery(_ gateway: GatewayProcess, _ company: String) async throws -> PhotoGalleryResponse {
            let response = try await SystemClient.send(
                gateway, "GET", "/v1/companies/\(company)/photos", headers: [("X-Device-Id", "photo-test")])
            #expect(response.status == 200, "\(SystemClient.text(response))")
            return try JSONDecoder().decode(PhotoGalleryResponse.self, from: Data(response.body))
        }

        static func vote(_ gateway: GatewayProcess, _ token: String, _ id: String, _ direction: String) async throws
            -> HTTPClientResponse
        {
            try await SystemClient.send(
                gateway, "POST", "/v1/photos/\(id)/vote", json: #"{"direction":"\#(direction)"}"#,
                headers: [("Authorization", "Bearer \(token)")])
        }

        @Test func uploadStripVoteAndDelete() async throws {
            let identify = try await ServiceProcess.start("Identify")
            let gateway = try await GatewayProcess.start(instance: "test-photos-\(UInt16.random(in: 0...9999))")
            defer {
                identify.kill()
                gateway.process.kill()
            }
            let (owner, ownerId) = try await SystemClient.signIn(gateway)
            let (other, _) = try await SystemClient.signIn(gateway)
            try await SystemClient.waitForIdentify(gateway, auth: [("Authorization", "Bearer \(owner)")])
            let company = "sbux-\(UInt16.random(in: 0...9999))"

            // A real JPEG with GPS EXIF and XMP spliced in and a script after its end.
            let drawn = try await TestImages.draw("COFFEE", format: "jpg")
            let tagged =
                JPEGBytes.inserting([JPEGBytes.gpsExif, JPEGBytes.xmp], into: drawn)
                + Array("<script>alert(1)</script>".utf8)
            #expect(JPEGBytes.contains(tagged, "GPS") && JPEGBytes.contains(tagged, "<script"))

            // The original's refusals, in its order; none stores anything.
            let refusals: [(HTTPClientResponse, Int, String)] = [
                (
                    try await Self.upload(gateway, owner, company: company, image: tagged, key: nil), 400,
                    "Idempotency-Key header required"
                ),
                (
                    try await Self.upload(
                        gateway, owner, company: company, image: tagged, fields: [("location", #"{"lat":1,"lng":2}"#)]),
                    400, "captures must come straight from the live camera, not the photo library"
                ),
                (
                    try await Self.upload(
                        gateway, owner, company: company, image: tagged, fields: [("captureSource", "camera")]),
                    400, "location required"
                ),
                (
                    try await Self.upload(
                        gateway, owner, company: company, image: tagged,
                        fields: [
                            ("captureSource", "camera"), ("location", #"{"lat":40.74,"lng":-73.99}"#),
                            ("exifLocation", #"{"lat":40.80,"lng":-73.99}"#),
                        ]), 422, "this photo's location doesn't match the claimed capture location"
                ),
                (
                    try await Self.upload(
                        gateway, owner, company: company,
                        image: [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF\0<?php system($_GET['c']); ?>".utf8),
                        key: "k-polyglot"), 415, "image could not be decoded (expected JPEG, PNG or WebP)"
                ),
            ]
            for (response, status, message) in refusals {
                #expect(response.status == status && SystemClient.errorMessage(response) == message, "\(message)")
            }
            #expect(try await Self.gallery(gateway, company).captureCount == 0)

            // Stored: the first capture (201), served back as a JPEG with no EXIF, XMP or script.
            let first = try await Self.upload(gateway, owner, company: "%20\(company)%20", image: tagged)
            #expect(first.status == 201, "\(SystemClient.text(first))")
            let created = try Self.capture(first)
            #expect(created.isFirstCapture && created.captureCount == 1 && created.photo.userId == ownerId)
            #expect(created.photo.companyId == company.uppercased() && created.photo.lat == 40.74)
            #expect(created.firstCapturedBy?.photoId == created.photo.id)
            let path = try #require(created.photo.photoUrl.range(of: "/v1/photos/")).lowerBound
            let image = try await SystemClient.send(
                gateway, "GET", String(created.photo.photoUrl[path...]), headers: [("X-Device-Id", "photo-test")])
            #expect(image.status == 200 && image.headers["Content-Type"] == "image/jpeg")
            #expect(image.headers["Cache-Control"]?.contains("max-age") == true)
            let segments = try #require(JPEGBytes.segments(image.body))
            #expect(!segments.contains { $0.marker == 0xE1 || $0.marker == 0xFE })
            #expect(!JPEGBytes.contains(image.body, "Exif") && !JPEGBytes.contains(image.body, "GPS"))
            #expect(!JPEGBytes.contains(image.body, "<script") && Array(image.body.suffix(2)) == [0xFF, 0xD9])

            // A replayed key answers the stored submission (200), counting nothing twice.
            let replay = try await Self.upload(gateway, owner, company: company, image: tagged)
            let replayed = try Self.capture(replay)
            #expect(replay.status == 200 && replayed.photo.id == created.photo.id && replayed.captureCount == 1)

            // One vote per user and photo: a second one replaces the first, never adds to it.
            let id = created.photo.id
            #expect((try await Self.vote(gateway, other, id, "up")).status == 200)
            let twice = try await Self.vote(gateway, other, id, "up")
            #expect(try JSONDecoder().decode(PhotoVoteResponse.self, from: Data(twice.body)).photo.score == 1)
            let changed = try await Self.vote(gateway, other, id, "down")
            #expect(try JSONDecoder().decode(PhotoVoteResponse.self, from: Data(changed.body)).photo.score == -1)
            let own = try await Self.vote(gateway, owner, id, "up")
            #expect(try JSONDecoder().decode(PhotoVoteResponse.self, from: Data(own.body)).photo.score == 0)
            let bad = try await Self.vote(gateway, other, id, "sideways")
            #expect(bad.status == 400 && SystemClient.errorMessage(bad) == #"direction must be "up" or "down""#)
            let unknown = try await Self.vote(gateway, other, UUID().uuidString, "up")
            #expect(unknown.status == 404 && SystemClient.errorMessage(unknown) == "photo not found")

            // A second photo by the other user; the gallery puts the first capture first.
            let second = try await Self.upload(gateway, other, company: company, image: drawn, key: "k-2")
            let secondPhoto = try Self.capture(second)
            #expect(second.status == 200 && !secondPhoto.isFirstCapture)
            let listed = try await Self.gallery(gateway, company)
            #expect(listed.captureCount == 2 && listed.photos.map(\.id).first == id)

            // Only the owner deletes: another user's id is a 404; the first capture then passes on.
            let stolen = try await SystemClient.send(
                gateway, "DELETE", "/v1/photos/\(id)", headers: [("Authorization", "Bearer \(other)")])
            #expect(stolen.status == 404 && SystemClient.errorMessage(stolen) == "photo not found")
            #expect(try await Self.gallery(gateway, company).photos.count == 2)
            let deleted = try await SystemClient.send(
                gateway, "DELETE", "/v1/photos/\(id)", headers: [("Authorization", "Bearer \(owner)")])
            #expect(deleted.status == 204)
            let after = try await Self.gallery(gateway, company)
            #expect(after.captureCount == 1 && after.photos.count == 1)
            #expect(after.firstCapturedBy?.photoId == secondPhoto.photo.id)
            let gone = try await SystemClient.send(
                gateway, "GET", "/v1/photos/\(id)/image", headers: [("X-Device-Id", "photo-test")])
            #expect(gone.status == 404)
        }
    }
}
