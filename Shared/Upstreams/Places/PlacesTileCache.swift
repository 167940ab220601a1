import Contracts
import Foundation
import Geo
import Redis
import Runtime

/// The tile a request reads: `v1:<geohash6>:<radiusBucket>` (docs/COMPATIBILITY.md#places, #caches).
///
/// The radius bucket is `max(100, round(radius/100)·100)`. When the map sends its zoom, refetch follows the
/// viewport: the zoom bucket (⌊zoom⌋ clamped to 10…16) sets the step the radius is rounded to — 100 m at 16 and
/// above, doubling per level out to 6.4 km at 10 — so small pans and pinches inside one bucket reuse the tile.
public struct TileKey: Sendable, Hashable, CustomStringConvertible {
    public let geohash: String
    public let radiusBucket: Int

    public init?(center: LatLng, radius: Double, zoom: Double? = nil) {
        guard let geohash = Geohash.encode(lat: center.lat, lng: center.lng, precision: 6) else { return nil }
        self.geohash = geohash
        self.radiusBucket = Self.radiusBucket(radius: radius, zoom: zoom)
    }

    /// The cache key.
    public var description: String { "v1:\(geohash):\(radiusBucket)" }

    /// Largest radius asked upstream (Google's limit).
    static let maximumRadius = 50_000

    public static func radiusBucket(radius: Double, zoom: Double? = nil) -> Int {
        let r = radius.isFinite ? max(0, radius) : 500
        var step = 100.0
        if let bucket = zoom.flatMap({ $0.rounded(.down).clampedInt(10...16) }) {
            step = 100 * Double(1 << (16 - bucket))
        }
        let rounded = ((r / step).rounded() * step).clampedInt(0...maximumRadius) ?? maximumRadius
        return min(maximumRadius, max(Int(step), rounded))
    }
}

/// The raw places of one tile and where they came from; the ticker join is not cached here.
public struct PlacesTile: Codable, Sendable, Equatable {
    public var source: PlacesSource
    public var places: [Place]
    public var fetchedAt: String
    public var center: LatLng

    public init(source: PlacesSource, places: [Place], fetchedAt: String, center: LatLng) {
        self.source = source
        self.places = places
        self.fetchedAt = fetchedAt
        self.center = center
    }
}

/// The tile cache in Redis (12 h, shared by replicas) in front of the cascade: one fetch per tile per process,
/// and a short cross-replica lock. Written only after a non-empty fresh fetch.
public struct PlacesTileCache: Sendable {
    public static let ttl: Duration = .seconds(12 * 3600)

    /// What a lookup found.
    public enum Lookup: Sendable, Equatable {
        case tile(PlacesTile, cached: Bool)
        case empty(failures: [String])
        case failed([String])
    }

    /// Cached payload: a tile, or (never stored) the reason there is none.
    struct Entry: Codable, Sendable {
        var tile: PlacesTile?
        var failures: [String]?
        var answered: Bool?
    }

    private let cascade: PlacesCascade
    private let cache: RedisSharedCache<Entry>
    private let ttl: Duration

    public init(cascade: PlacesCascade, redis: RedisClient?, ttl: Duration = PlacesTileCache.ttl, logger: Logger) {
        self.cascade = cascade
        self.ttl = ttl
        cache = RedisSharedCache(
            redis: redis, prefix: "mapvest:places:", lockTTL: .seconds(10), waitForOther: .seconds(3), logger: logger)
    }

    public func lookup(_ key: TileKey, center: LatLng, deadline: ContinuousClock.Instant) async -> Lookup {
        let ttl = self.ttl
        let cascade = self.cascade
        let outcome = await cache.value(key.description, ttl: { $0.tile == nil ? nil : ttl }) {
            switch await cascade.fetch(center: center, radius: key.radiusBucket, deadline: deadline) {
            case .places(let places, let source):
                return Entry(
                    tile: PlacesTile(
                        source: source, places: places, fetchedAt: Timestamp.iso8601(Date()), center: center))
            case .empty(let failures):
                return Entry(tile: nil, failures: failures, answered: true)
            case .failed(let failures):
                return Entry(tile: nil, failures: failures, answered: false)
            }
        }
        if let tile = outcome.value.tile { return .tile(tile, cached: outcome.origin == .cached) }
        let failures = outcome.value.failures ?? []
        return outcome.value.answered == true ? .empty(failures: failures) : .failed(failures)
    }
}
