import Contracts
import Foundation
import Geo
import Places
import Resolver
import Runtime

/// `GET /v1/nearby` (docs/COMPATIBILITY.md#nearby): the tile (cache or cascade), filtering and ranking, the brand →
/// ticker join, and `state` for signed-in callers from the captures read model.
public struct NearbyAnswerer: Sendable {
    /// The answer and what the `nearby.served` event reports.
    public struct Answer: Sendable {
        /// The response, or the 502 message when the cascade is exhausted.
        public let result: Result<NearbyResponse, PlacesLookupFailed>
        public let event: NearbyServedEvent
    }

    /// Every places source failed: `places lookup failed: <source>: <reason>; …`.
    public struct PlacesLookupFailed: Error, Sendable, Equatable {
        public let message: String
    }

    let tiles: PlacesTileCache
    let join: BrandJoin
    let captures: CapturesStore?
    let logger: Logger
    /// Time kept back for encoding and producing the reply.
    public var reserve: Duration = .milliseconds(400)

    public init(tiles: PlacesTileCache, join: BrandJoin, captures: CapturesStore?, logger: Logger) {
        self.tiles = tiles
        self.join = join
        self.captures = captures
        self.logger = logger
    }

    /// `Cache-Control` by caller: signed-in answers carry per-user state.
    public static func cacheControl(signedIn: Bool) -> String {
        signedIn ? "private, max-age=60" : "public, max-age=60, stale-while-revalidate=300"
    }

    public func answer(_ command: NearbyCommand, deadline: ContinuousClock.Instant) async -> Answer {
        let started = ContinuousClock.now
        let center = LatLng(lat: command.lat, lng: command.lng)
        let signedIn = command.userId != nil
        guard let key = TileKey(center: center, radius: command.radius, zoom: command.zoom) else {
            // The gateway validated the point; this only guards against a malformed command.
            return Answer(
                result: .failure(PlacesLookupFailed(message: "places lookup failed: invalid location")),
                event: NearbyServedEvent(
                    tile: "invalid", source: "none", tileCacheHit: false, items: 0, investables: 0, signedIn: signedIn,
                    latencyMs: 0))
        }
        let workDeadline = deadline - reserve
        let lookup = await tiles.lookup(key, center: center, deadline: workDeadline)
        let tile: PlacesTile
        let cacheHit: Bool
        switch lookup {
        case .tile(let found, let cached):
            tile = found
            cacheHit = cached
        case .empty:
            return Answer(
                result: .success(NearbyResponse(items: [], sources: [])),
                event: event(key, source: "none", hit: false, items: 0, investables: 0, signedIn, started))
        case .failed(let failures):
            let detail = failures.isEmpty ? "no source answered" : failures.joined(separator: "; ")
            return Answer(
                result: .failure(PlacesLookupFailed(message: "places lookup failed: \(detail)")),
                event: event(key, source: "none", hit: false, items: 0, investables: 0, signedIn, started))
        }

        let ranked = PlaceRanking.rank(tile.places, limit: command.limit)
        async let resolutionsTask = join.resolve(ranked.map(\.joinName), deadline: workDeadline)
        async let capturedTask = capturesFor(userId: command.userId, places: ranked)
        let (resolutions, userCaptures) = await (resolutionsTask, capturedTask)

        var items: [NearbyItem] = []
        var investables = 0
        for place in ranked {
            let resolution = resolutions[TickerResolver.key(place.joinName)]
            let investable = resolution.flatMap(Self.investable)
            if investable != nil { investables += 1 }
            var state: NearbyState?
            if let userCaptures {
                state =
                    Self.isCaptured(place, ticker: investable?.brand.ticker?.symbol, in: userCaptures)
                    ? .captured : .seen
            }
            items.append(NearbyItem(place: place.wire, investable: investable, state: state))
        }
        let source = NearbySource(
            provider: tile.source.rawValue, attribution: tile.source.attribution, fetchedAt: tile.fetchedAt)
        return Answer(
            result: .success(NearbyResponse(items: items, sources: [source])),
            event: event(
                key, source: tile.source.rawValue, hit: cacheHit, items: items.count, investables: investables,
                signedIn,
                started))
    }

    /// `{brand, comparables: [], etfs: [], confidence: high, sources}` for a public brand; nil otherwise.
    static func investable(_ resolution: BrandResolution) -> Investable? {
        guard resolution.brand.isPublic, resolution.brand.ticker != nil else { return nil }
        let sources =
            resolution.sources.isEmpty
            ? [Source(provider: .manual, fetchedAt: Timestamp.iso8601(Date()), confidence: .high)] : resolution.sources
        return Investable(brand: resolution.brand, confidence: .high, sources: sources)
    }

    /// Captured when the user has a find in the place's tile with the same brand key, or the same ticker.
    static func isCaptured(_ place: Place, ticker: String?, in captures: Set<CapturesStore.Capture>) -> Bool {
        guard let tile = Geohash.encode(lat: place.location.lat, lng: place.location.lng, precision: 6) else {
            return false
        }
        let keys: Set<String> = [TickerResolver.key(place.joinName), TickerResolver.key(place.name)]
        return captures.contains { capture in
            capture.tile == tile && (keys.contains(capture.brandKey) || (ticker != nil && capture.ticker == ticker))
        }
    }

    /// The signed-in caller's captures in the tiles of these places; nil for anonymous callers, and on a read
    /// failure (logged; `state` is then absent, which clients read as `seen`).
    private func capturesFor(userId: String?, places: [Place]) async -> Set<CapturesStore.Capture>? {
        guard let userId else { return nil }
        guard let captures else { return [] }
        let tiles = places.compactMap { Geohash.encode(lat: $0.location.lat, lng: $0.location.lng, precision: 6) }
        do {
            return Set(try await captures.captures(userId: userId, tiles: tiles))
        } catch {
            logger.warning("captures read failed; state omitted", [LogKeys.error: "\(error)"])
            return nil
        }
    }

    private func event(
        _ key: TileKey, source: String, hit: Bool, items: Int, investables: Int, _ signedIn: Bool,
        _ started: ContinuousClock.Instant
    ) -> NearbyServedEvent {
        NearbyServedEvent(
            tile: key.description, source: source, tileCacheHit: hit, items: items, investables: investables,
            signedIn: signedIn, latencyMs: Int((ContinuousClock.now - started).inMilliseconds))
    }
}
