import Contracts
import Finance
import Places

/// The places near a point through the tile cache Nearby also fills (`PlacesTileCache` over the cascade): ranked,
/// excluded kinds dropped, each with its seed listing when the brand seed knows it as public. The Local Economy
/// Brief names them; uncaught-nearby picks among the listed ones.
struct NearbyPlaces: Sendable {
    let places: PlacesTileCache

    /// A ranked place and its public listing, if any.
    struct Ranked: Sendable {
        let place: Place
        let listing: SeedEntry?
    }

    /// Up to `limit` ranked places within `radius` metres; nil when every upstream failed.
    func ranked(lat: Double, lng: Double, radius: Int, limit: Int, deadline: ContinuousClock.Instant) async -> [Ranked]?
    {
        let center = LatLng(lat: lat, lng: lng)
        guard let key = TileKey(center: center, radius: Double(radius)) else { return [] }
        let tile: PlacesTile
        switch await places.lookup(key, center: center, deadline: deadline) {
        case .tile(let found, _): tile = found
        case .empty: return []
        case .failed: return nil
        }
        return PlaceRanking.rank(tile.places.filter { !PlaceRanking.isExcluded($0) }, limit: limit).map { place in
            Ranked(
                place: place,
                listing: BrandMatcher.shared.matchAny([place.joinName, place.name]).flatMap {
                    $0.entry.isPublic ? $0.entry : nil
                })
        }
    }
}
