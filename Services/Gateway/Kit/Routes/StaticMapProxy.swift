import Contracts
import HTTPClient
import HTTPServer

/// Google Static Maps for `GET /v1/widget/map-snapshot` when `GOOGLE_MAPS_API_KEY` is set: the origin in green and a
/// marker per place (orange when investable, grey otherwise) labelled by the first character of its ticker or name,
/// at scale 2. The key stays on the server; the PNG is passed through.
struct StaticMapProxy: Sendable {
    static let defaultBaseURL = "https://maps.googleapis.com"

    let http: HTTPClient
    let apiKey: String
    let baseURL: String
    let timeout: Duration

    /// The request URL (the key is its last parameter; never logged).
    func url(origin: LatLng, width: Int, height: Int, pins: [MapSnapshotPin]) -> String {
        func coordinate(_ p: LatLng) -> String { "\(p.lat),\(p.lng)" }
        var parts = [
            "center=\(coordinate(origin))", "size=\(width)x\(height)", "scale=2", "maptype=roadmap",
            "markers=" + encode("color:0x1AE39A|label:•|\(coordinate(origin))"),
        ]
        for pin in pins {
            let label = pin.label.first.map { String($0).uppercased() } ?? "?"
            let color = pin.investable ? "0xF0A36B" : "0x6B7280"
            parts.append("markers=" + encode("color:\(color)|label:\(label)|\(pin.lat),\(pin.lng)"))
        }
        parts.append("key=" + encode(apiKey))
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/maps/api/staticmap?" + parts.joined(separator: "&")
    }

    /// The PNG, or the 502 to answer.
    func fetch(origin: LatLng, width: Int, height: Int, pins: [MapSnapshotPin]) async -> Result<[UInt8], HTTPResponse> {
        var request = HTTPClientRequest(url: url(origin: origin, width: width, height: height, pins: pins))
        request.timeout = timeout
        request.connectTimeout = min(request.connectTimeout, timeout)
        do {
            let response = try await http.execute(request)
            guard (200..<300).contains(response.status) else {
                return .failure(.error(502, "static map failed: \(response.status)"))
            }
            return .success(response.body)
        } catch {
            return .failure(.error(502, "static map failed: unreachable"))
        }
    }

    private func encode(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            if (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122)
                || [45, 46, 95, 126, 44, 58].contains(b)
            {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                out += "%" + String(b, radix: 16, uppercase: true).leftPadded
            }
        }
        return out
    }
}

extension String {
    fileprivate var leftPadded: String { count == 1 ? "0" + self : self }
}
