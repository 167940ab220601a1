import Contracts
import Foundation
import HTTPServer

/// The identify form's fields after validation (docs/COMPATIBILITY.md#identify).
struct IdentifyForm: Sendable {
    static let maxImageBytes = 8 * 1024 * 1024
    static let tooLarge = HTTPResponse.error(413, "image too large (max 8MB)")

    var image: [UInt8]
    var contentType: String
    var hint: String?
    var location: LatLng?
    var roi: [String: Double]?

    /// A request the form rejects, with its contract status and body.
    struct Rejection: Error {
        let response: HTTPResponse
    }

    static func parse(_ request: HTTPRequest) -> Result<IdentifyForm, Rejection> {
        guard let contentType = request.head.headers["Content-Type"],
            contentType.lowercased().hasPrefix("multipart/form-data"),
            let boundary = Multipart.boundary(fromContentType: contentType),
            let parts = try? Multipart.parse(request.body, boundary: boundary)
        else { return .failure(Rejection(response: .error(400, "invalid multipart body"))) }

        guard let image = parts.first(where: { $0.name == "image" && ($0.filename != nil || $0.contentType != nil) }),
            !image.data.isEmpty
        else { return .failure(Rejection(response: .error(400, "image required"))) }
        guard let type = image.contentType?.trimmingCharacters(in: .whitespaces), type.lowercased().hasPrefix("image/")
        else { return .failure(Rejection(response: .error(415, "unsupported media type (expected image/*)"))) }
        guard image.data.count <= Self.maxImageBytes else {
            return .failure(Rejection(response: Self.tooLarge))
        }

        // The text fields this form reads (others are ignored and go nowhere).
        let read: Set<String> = ["hint", "location", "lat", "lng", "roi"]
        let fields = parts.filter { $0.filename == nil && read.contains($0.name) }
        guard fields.allSatisfy({ RequestHeadCheck.isCleanText($0.data) }) else {
            return .failure(Rejection(response: .error(400, "form fields must be UTF-8 without NUL characters")))
        }
        func text(_ name: String) -> String? {
            fields.first(where: { $0.name == name }).flatMap { String(validating: $0.data, as: UTF8.self) }
        }
        return .success(
            IdentifyForm(
                image: image.data, contentType: type, hint: hint(text("hint")),
                location: location(json: text("location"), lat: text("lat"), lng: text("lng")),
                roi: roi(text("roi"))))
    }

    /// Trimmed, cut to 140 characters; empty → absent.
    static func hint(_ raw: String?) -> String? {
        guard let trimmed = raw?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        return String(trimmed.prefix(140))
    }

    /// `location` JSON `{"lat":n,"lng":n}` when valid, else the legacy `lat`/`lng` parts, else absent.
    static func location(json: String?, lat: String?, lng: String?) -> LatLng? {
        if let json, let data = json.data(using: .utf8),
            let decoded = try? JSONDecoder().decode(LatLngInput.self, from: data),
            let valid = LatLng.validated(lat: decoded.lat, lng: decoded.lng)
        {
            return valid
        }
        return LatLng.validated(
            lat: lat.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) },
            lng: lng.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) })
    }

    /// A JSON object whose every value is a finite number in [0, 1]; anything else is ignored.
    static func roi(_ raw: String?) -> [String: Double]? {
        guard let raw, let data = raw.data(using: .utf8),
            let values = try? JSONDecoder().decode([String: Double].self, from: data), !values.isEmpty,
            values.values.allSatisfy({ $0.isFinite && (0...1).contains($0) })
        else { return nil }
        return values
    }

    private struct LatLngInput: Decodable {
        let lat: Double
        let lng: Double
    }
}
