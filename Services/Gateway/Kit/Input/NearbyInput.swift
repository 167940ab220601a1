import Contracts
import HTTPServer
import Runtime

/// `GET /v1/nearby` input (docs/COMPATIBILITY.md#nearby).
enum NearbyInput {
    /// `lat`/`lng` must be finite numbers in range (else 400 `lat/lng required`); `radius` (metres, default 500,
    /// 1…50 000) and `limit` (default 25, 1…100) fall back to their defaults when they are not positive numbers, as the
    /// contract does not reject them; `zoom` is kept (clamped to 0…30) when it is a number. A parameter that reads as
    /// a number but is not finite (`1e400`) is a 400.
    static func command(_ query: [String: String], userId: String?) throws(HTTPResponse) -> NearbyCommand {
        let numbers = QueryNumbers(query)
        let lat = try? numbers.double("lat")
        let lng = try? numbers.double("lng")
        guard let location = LatLng.validated(lat: lat, lng: lng) else {
            throw .error(.latLngRequired)
        }
        let radius = try numbers.double("radius").flatMap { $0 > 0 ? min($0, 50_000) : nil } ?? 500
        let limit = try numbers.double("limit").flatMap { $0 >= 1 ? $0.clampedInt(1...100) : nil } ?? 25
        let zoom = try numbers.double("zoom").map { min(30, max(0, $0)) }
        return NearbyCommand(
            lat: location.lat, lng: location.lng, radius: max(1, radius), limit: limit, zoom: zoom, userId: userId)
    }
}
