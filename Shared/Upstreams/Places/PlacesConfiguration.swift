import Foundation
import Runtime

/// Where places come from and how long each source may take (docs/COMPATIBILITY.md#places-upstreams). Every base URL is
/// configuration, so tests and staging point them at fakes or private mirrors.
public struct PlacesConfiguration: Sendable {
    public static let defaultGoogleBaseURL = "https://maps.googleapis.com"
    public static let defaultPhotonBaseURL = "https://photon.komoot.io"
    public static let defaultOverpassURLs = [
        "https://overpass.openstreetmap.fr/api/interpreter", "https://overpass.osm.ch/api/interpreter",
        "https://overpass-api.de/api/interpreter", "https://lz4.overpass-api.de/api/interpreter",
        "https://overpass.kumi.systems/api/interpreter", "https://z.overpass-api.de/api/interpreter",
    ]
    /// The 18 Google place types asked in parallel.
    public static let googleTypes = [
        "restaurant", "cafe", "bakery", "meal_takeaway", "bar", "store", "supermarket", "convenience_store",
        "clothing_store", "department_store", "pharmacy", "bank", "gas_station", "gym", "lodging", "shopping_mall",
        "electronics_store", "movie_theater",
    ]
    /// The 12 chains Photon is asked about, the last resort.
    public static let photonChains = [
        "Starbucks", "McDonald's", "Dunkin'", "Chase", "CVS", "Walgreens", "Target", "Chipotle", "Taco Bell", "Subway",
        "Bank of America", "Wendy's",
    ]
    /// Sent on every OpenStreetMap-family request, as their usage policies ask.
    public static let osmUserAgent = "mapvest/0.1 (support@mapvest.app)"

    /// The server's Google key; nil → the OpenStreetMap sources only (and the response says so in `sources`).
    public var googleAPIKey: String?
    public var googleBaseURL: String
    /// Overpass interpreter URLs, raced; the first non-empty answer wins.
    public var overpassURLs: [String]
    public var photonBaseURL: String
    /// Per-request time for Google (each of the 18 type requests). Default 5 s.
    public var googleTimeout: Duration
    /// Default 7 s.
    public var overpassTimeout: Duration
    /// Default 8 s.
    public var photonTimeout: Duration

    public init(
        googleAPIKey: String? = nil, googleBaseURL: String = defaultGoogleBaseURL,
        overpassURLs: [String] = defaultOverpassURLs, photonBaseURL: String = defaultPhotonBaseURL,
        googleTimeout: Duration = .seconds(5), overpassTimeout: Duration = .seconds(7),
        photonTimeout: Duration = .seconds(8)
    ) {
        self.googleAPIKey = googleAPIKey.flatMap { $0.isEmpty ? nil : $0 }
        self.googleBaseURL = Self.trimmed(googleBaseURL)
        self.overpassURLs = overpassURLs
        self.photonBaseURL = Self.trimmed(photonBaseURL)
        self.googleTimeout = googleTimeout
        self.overpassTimeout = overpassTimeout
        self.photonTimeout = photonTimeout
    }

    /// `GOOGLE_MAPS_API_KEY`, `GOOGLE_PLACES_BASE_URL`, `OVERPASS_URLS` (comma-separated interpreter URLs),
    /// `PHOTON_BASE_URL`, and `GOOGLE_PLACES_TIMEOUT_MS` / `OVERPASS_TIMEOUT_MS` / `PHOTON_TIMEOUT_MS`.
    public static func fromEnvironment(_ env: Environment) -> PlacesConfiguration {
        let overpass = env.get("OVERPASS_URLS").map {
            $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        return PlacesConfiguration(
            googleAPIKey: env.get("GOOGLE_MAPS_API_KEY")?.trimmingCharacters(in: .whitespaces),
            googleBaseURL: env.get("GOOGLE_PLACES_BASE_URL", default: defaultGoogleBaseURL),
            overpassURLs: overpass.flatMap { $0.isEmpty ? nil : $0 } ?? defaultOverpassURLs,
            photonBaseURL: env.get("PHOTON_BASE_URL", default: defaultPhotonBaseURL),
            googleTimeout: env.milliseconds("GOOGLE_PLACES_TIMEOUT_MS", default: .seconds(5)),
            overpassTimeout: env.milliseconds("OVERPASS_TIMEOUT_MS", default: .seconds(7)),
            photonTimeout: env.milliseconds("PHOTON_TIMEOUT_MS", default: .seconds(8)))
    }

    private static func trimmed(_ url: String) -> String {
        var s = url
        while s.hasSuffix("/") { s.removeLast() }
        return s
    }
}
