/// `GET /v1/proxy/places` (docs/COMPATIBILITY.md#places-proxy, #maps-token): the map's server-side places lookup,
/// authorised by a maps token. The answer keeps the shape of Google's legacy Nearby Search JSON, which the client
/// parses.

/// The command the gateway sends to Nearby. The gateway validated every field.
public struct PlacesProxyCommand: Codable, Sendable, Equatable {
    public static let name = "nearby.places-proxy.v1"

    public var lat: Double
    public var lng: Double
    /// Metres, 1…50 000.
    public var radius: Double
    /// Kept when a place's name or brand contains it (case-insensitive).
    public var keyword: String?
    /// A Google place type (`cafe`, `bank`…): kept when a place has it.
    public var type: String?

    public init(lat: Double, lng: Double, radius: Double, keyword: String? = nil, type: String? = nil) {
        self.lat = lat
        self.lng = lng
        self.radius = radius
        self.keyword = keyword
        self.type = type
    }
}

/// Google's Nearby Search envelope: `{html_attributions, results, status}` (`OK` or `ZERO_RESULTS`).
public struct PlacesProxyResponse: Codable, Sendable, Equatable {
    /// The attribution of the source that answered (OpenStreetMap answers carry the ODbL notice).
    public var htmlAttributions: [String]
    public var results: [PlacesProxyResult]
    public var status: String

    enum CodingKeys: String, CodingKey {
        case htmlAttributions = "html_attributions"
        case results, status
    }

    public init(htmlAttributions: [String], results: [PlacesProxyResult], status: String) {
        self.htmlAttributions = htmlAttributions
        self.results = results
        self.status = status
    }
}

/// One place in Google's result shape: `{place_id, name, geometry: {location: {lat, lng}}, types}`.
public struct PlacesProxyResult: Codable, Sendable, Equatable {
    public struct Geometry: Codable, Sendable, Equatable {
        public var location: LatLng

        public init(location: LatLng) { self.location = location }
    }

    public var placeId: String
    public var name: String
    public var geometry: Geometry
    public var types: [String]

    enum CodingKeys: String, CodingKey {
        case placeId = "place_id"
        case name, geometry, types
    }

    public init(placeId: String, name: String, location: LatLng, types: [String]) {
        self.placeId = placeId
        self.name = name
        self.geometry = Geometry(location: location)
        self.types = types
    }
}
