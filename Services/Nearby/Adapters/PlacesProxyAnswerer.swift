import Contracts
import NearbyCore
import Places

/// `GET /v1/proxy/places` behind the maps token: the tile nearby uses (same cache, same cascade), narrowed to the
/// optional `type` and `keyword`, filtered and ranked as nearby ranks, in Google's Nearby Search shape.
public struct PlacesProxyAnswerer: Sendable {
    let tiles: PlacesTileCache
    /// Time kept back for encoding and producing the reply.
    public var reserve: Duration = .milliseconds(400)

    public init(tiles: PlacesTileCache) {
        self.tiles = tiles
    }

    /// The response, or the 502 message when every places source failed.
    public func answer(
        _ command: PlacesProxyCommand, deadline: ContinuousClock.Instant
    ) async -> Result<PlacesProxyResponse, PlacesLookupFailed> {
        let center = LatLng(lat: command.lat, lng: command.lng)
        guard let key = TileKey(center: center, radius: command.radius) else {
            return .failure(.invalidLocation)
        }
        switch await tiles.lookup(key, center: center, deadline: deadline - reserve) {
        case .tile(let tile, _):
            let kept = PlaceRanking.rank(
                tile.places.filter {
                    PlacesProxyRules.matches(name: $0.name, brand: $0.brand, types: $0.types, command)
                },
                limit: PlacesProxyRules.pageSize)
            let results = kept.map {
                PlacesProxyResult(placeId: $0.id, name: $0.name, location: $0.location, types: $0.types)
            }
            return .success(
                PlacesProxyResponse(
                    htmlAttributions: [tile.source.attribution], results: results,
                    status: results.isEmpty ? "ZERO_RESULTS" : "OK"))
        case .empty:
            return .success(PlacesProxyResponse(htmlAttributions: [], results: [], status: "ZERO_RESULTS"))
        case .failed(let failures):
            return .failure(PlacesLookupFailed(failures: failures))
        }
    }
}
