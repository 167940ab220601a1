import Contracts
import Foundation
import Geo
import HTTPServer

/// A company-photo upload after the original's checks (docs/COMPATIBILITY.md#company-photos), in its order once the
/// body is read: image part, `image/*` type, size, live-camera source, claimed location, EXIF location drift.
struct CompanyPhotoForm: Sendable {
    /// The drift allowed between the claimed location and the photo's own (the territory tile radius).
    static let maxDriftMetres = 700.0
    static let libraryCapture = HTTPResponse.json(
        400,
        CodedError(
            error: "captures must come straight from the live camera, not the photo library",
            code: "library_capture_rejected"))
    static let geotagMismatch = HTTPResponse.json(
        422,
        CodedError(
            error: "this photo's location doesn't match the claimed capture location", code: "geotag_mismatch"))

    /// The original's refusals that carry a machine-readable `code` beside the message.
    struct CodedError: Encodable {
        let error: String
        let code: String
    }

    var image: [UInt8]
    var location: LatLng
    var exifTimestamp: String?

    static func parse(_ request: HTTPRequest) -> Result<CompanyPhotoForm, IdentifyForm.Rejection> {
        func reject(_ response: HTTPResponse) -> Result<CompanyPhotoForm, IdentifyForm.Rejection> {
            .failure(IdentifyForm.Rejection(response: response))
        }
        guard let contentType = request.head.headers["Content-Type"],
            contentType.lowercased().hasPrefix("multipart/form-data"),
            let boundary = Multipart.boundary(fromContentType: contentType),
            let parts = try? Multipart.parse(request.body, boundary: boundary)
        else { return reject(.error(400, "invalid multipart body")) }
        guard let image = parts.first(where: { $0.name == "image" && ($0.filename != nil || $0.contentType != nil) }),
            !image.data.isEmpty
        else { return reject(.error(400, "image required")) }
        guard let type = image.contentType?.trimmingCharacters(in: .whitespaces), type.lowercased().hasPrefix("image/")
        else { return reject(.error(415, "unsupported media type (expected image/*)")) }
        guard image.data.count <= IdentifyForm.maxImageBytes else { return reject(IdentifyForm.tooLarge) }

        let read: Set<String> = ["captureSource", "location", "exifLocation", "exifTimestamp"]
        let fields = parts.filter { $0.filename == nil && read.contains($0.name) }
        guard fields.allSatisfy({ RequestHeadCheck.isCleanText($0.data) }) else {
            return reject(.error(400, "form fields must be UTF-8 without NUL characters"))
        }
        func text(_ name: String) -> String? {
            fields.first(where: { $0.name == name }).flatMap { String(validating: $0.data, as: UTF8.self) }
        }
        guard text("captureSource") == "camera" else { return reject(libraryCapture) }
        guard let location = IdentifyForm.location(json: text("location"), lat: nil, lng: nil) else {
            return reject(.error(400, "location required"))
        }
        if let exif = IdentifyForm.location(json: text("exifLocation"), lat: nil, lng: nil),
            haversineMetres(lat1: location.lat, lng1: location.lng, lat2: exif.lat, lng2: exif.lng) > maxDriftMetres
        {
            return reject(geotagMismatch)
        }
        let timestamp = text("exifTimestamp")
        guard (timestamp?.count ?? 0) <= 64 else {
            return reject(.error(400, "exifTimestamp must be at most 64 characters"))
        }
        return .success(
            CompanyPhotoForm(
                image: image.data, location: location, exifTimestamp: timestamp?.isEmpty == true ? nil : timestamp))
    }

    /// The path's company id trimmed and upper-cased (the finds' identity); nil when empty or when the path held more
    /// than 64 code points (counted as the document's `maxLength` counts them, not as characters).
    static func companyId(_ raw: String?) -> String? {
        guard let raw, raw.unicodeScalars.count <= 64 else { return nil }
        let id = raw.trimmingCharacters(in: .whitespacesAndNewlines).uppercased()
        return id.isEmpty ? nil : id
    }
}
