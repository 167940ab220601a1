import BriefsCore
import Contracts
import Foundation
import HTTPClient
import Redis
import Runtime

/// Nominatim reverse geocoding for the Local Economy Brief (docs/COMPATIBILITY.md#local-brief): `zoom=16`, the
/// OpenStreetMap User-Agent, 6 s, cached 24 h in Redis by lat/lng at 3 decimals (shared by replicas). A failure or an
/// empty address is nil and is not cached. `NOMINATIM_BASE_URL` points it elsewhere (tests, a private mirror).
struct ReverseGeocoder: Sendable {
    static let defaultBaseURL = "https://nominatim.openstreetmap.org"
    static let userAgent = "mapvest/0.1 (support@mapvest.app)"
    static let timeout: Duration = .seconds(6)
    static let cacheTTL: Duration = .seconds(24 * 3600)

    let baseURL: String
    let http: HTTPClient
    private let cache: RedisSharedCache<LocalBriefPlace?>

    init(baseURL: String, redis: RedisClient?, http: HTTPClient, logger: Logger) {
        var trimmed = baseURL
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.baseURL = trimmed
        self.http = http
        cache = RedisSharedCache(
            redis: redis, prefix: "mapvest:geocode:v1:", lockTTL: .seconds(8), waitForOther: .seconds(2), logger: logger
        )
    }

    /// The place at a point, or nil when Nominatim had nothing or did not answer.
    func place(lat: Double, lng: Double) async -> LocalBriefPlace? {
        let key = LocalBriefRules.geocodeKey(lat: lat, lng: lng)
        let (http, url) = (
            self.http, "\(baseURL)/reverse?format=json&" + String(format: "lat=%.6f&lon=%.6f", lat, lng) + "&zoom=16"
        )
        return await cache.value(key, ttl: { $0 == nil ? nil : Self.cacheTTL }) {
            let request = HTTPClientRequest(
                url: url, headers: [("User-Agent", Self.userAgent), ("Accept", "application/json")],
                timeout: Self.timeout)
            guard let response = try? await http.execute(request), response.status == 200 else { return nil }
            return LocalBriefRules.parseNominatim(response.body)
        }.value
    }

    /// The cached place at a point, without asking Nominatim (nil: not cached).
    func cachedPlace(lat: Double, lng: Double) async -> LocalBriefPlace? {
        await cache.get(LocalBriefRules.geocodeKey(lat: lat, lng: lng)) ?? nil
    }
}
