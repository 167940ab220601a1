import Contracts
import HTTPServer
import Runtime

/// `GET /v1/nearby` input (docs/COMPATIBILITY.md#nearby).
enum NearbyInput {
    /// `lat`/`lng` must be finite numbers in range (else 400 `lat/lng required`); `radius` (metres, default 500,
    /// 1…50 000), `limit` (default 25, 1…100) and `zoom` (0…30, optional) are 400s naming the field when present but
    /// not a number in their documented range.
    static func command(_ query: [String: String], userId: String?) throws(HTTPResponse) -> NearbyCommand {
        let numbers = QueryNumbers(query)
        let lat = try? numbers.double("lat")
        let lng = try? numbers.double("lng")
        guard let location = LatLng.validated(lat: lat, lng: lng) else {
            throw .error(.latLngRequired)
        }
        let radius = try numbers.double("radius", in: 1...50_000) ?? 500
        let limit = try numbers.integer("limit", default: 25, range: 1...100)
        let zoom = try numbers.double("zoom", in: 0...30)
        return NearbyCommand(
            lat: location.lat, lng: location.lng, radius: radius, limit: limit, zoom: zoom, userId: userId)
    }
}
