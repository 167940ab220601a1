/// `GET /v1/nearby` wire types (docs/COMPATIBILITY.md#nearby) and the command the gateway sends to Nearby.

/// A place on the map: Google `place_id`, `osm:<node|way|relation>:<id>` or `photon:<osm_type>:<osm_id|name>`.
public struct NearbyPlace: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var location: LatLng
    public var types: [String]

    public init(id: String, name: String, location: LatLng, types: [String]) {
        self.id = id
        self.name = name
        self.location = location
        self.types = types
    }
}

/// Whether a signed-in caller already captured this place's brand in its tile. Absent means `seen`.
public enum NearbyState: String, Codable, Sendable {
    case seen, captured
}

/// One map item: the place, its investable when the brand resolved public, and the caller's state.
public struct NearbyItem: Codable, Sendable, Equatable {
    public var place: NearbyPlace
    public var investable: Investable?
    public var state: NearbyState?

    public init(place: NearbyPlace, investable: Investable? = nil, state: NearbyState? = nil) {
        self.place = place
        self.investable = investable
        self.state = state
    }
}

/// Where the places came from (an addition to the contract's shape; clients that do not know it ignore it).
/// OpenStreetMap answers carry the attribution the ODbL asks for.
public struct NearbySource: Codable, Sendable, Equatable {
    /// `google`, `overpass` or `photon`.
    public var provider: String
    public var attribution: String
    /// When the places were fetched from the provider (ISO-8601); older than now when served from the tile cache.
    public var fetchedAt: String

    public init(provider: String, attribution: String, fetchedAt: String) {
        self.provider = provider
        self.attribution = attribution
        self.fetchedAt = fetchedAt
    }
}

/// `NearbyResponse = {items}` plus `sources` (see `NearbySource`).
public struct NearbyResponse: Codable, Sendable, Equatable {
    public var items: [NearbyItem]
    public var sources: [NearbySource]?

    public init(items: [NearbyItem], sources: [NearbySource]? = nil) {
        self.items = items
        self.sources = sources
    }
}

/// The command behind `GET /v1/nearby`. The gateway validated `lat`/`lng`; `radius` and `limit` are already
/// defaulted and clamped; `zoom` (optional) selects the radius bucket of the tile.
public struct NearbyCommand: Codable, Sendable, Equatable {
    public static let name = "nearby.get.v1"

    public var lat: Double
    public var lng: Double
    /// Metres, 1…50 000 (default 500).
    public var radius: Double
    /// 1…100 (default 25).
    public var limit: Int
    /// The map's zoom level, when the client sends one.
    public var zoom: Double?
    /// The signed-in caller (verified by the gateway), for `state`.
    public var userId: String?

    public init(lat: Double, lng: Double, radius: Double, limit: Int, zoom: Double? = nil, userId: String? = nil) {
        self.lat = lat
        self.lng = lng
        self.radius = radius
        self.limit = limit
        self.zoom = zoom
        self.userId = userId
    }

    enum CodingKeys: String, CodingKey { case lat, lng, radius, limit, zoom, userId }

    /// Re-checks what the gateway checked, because a command may come from an outside producer: an invalid point
    /// fails decoding; `radius`, `limit` and `zoom` are brought back into their ranges.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let point = LatLng.validated(
            lat: try c.decode(Double.self, forKey: .lat), lng: try c.decode(Double.self, forKey: .lng))
        guard let point else {
            throw DecodingError.dataCorruptedError(forKey: .lat, in: c, debugDescription: "lat/lng out of range")
        }
        lat = point.lat
        lng = point.lng
        let radius = try c.decode(Double.self, forKey: .radius)
        self.radius = radius.isFinite ? min(50_000, max(1, radius)) : 500
        limit = min(100, max(1, try c.decode(Int.self, forKey: .limit)))
        zoom = try c.decodeIfPresent(Double.self, forKey: .zoom).flatMap { $0.isFinite ? min(30, max(0, $0)) : nil }
        userId = try c.decodeIfPresent(String.self, forKey: .userId)
    }
}

/// `mapvest.nearby.served` (schema 1): one answered nearby request. The location is the tile only.
public struct NearbyServedEvent: Codable, Sendable, Equatable {
    public static let type = "mapvest.nearby.served"
    public static let schemaVersion = 1

    /// `v1:<geohash6>:<radiusBucket>`.
    public var tile: String
    /// `google`, `overpass`, `photon`, or `none` when no source answered with places.
    public var source: String
    public var tileCacheHit: Bool
    public var items: Int
    public var investables: Int
    public var signedIn: Bool
    public var latencyMs: Int

    public init(
        tile: String, source: String, tileCacheHit: Bool, items: Int, investables: Int, signedIn: Bool, latencyMs: Int
    ) {
        self.tile = tile
        self.source = source
        self.tileCacheHit = tileCacheHit
        self.items = items
        self.investables = investables
        self.signedIn = signedIn
        self.latencyMs = latencyMs
    }
}
