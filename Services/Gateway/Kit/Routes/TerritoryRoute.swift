import Contracts
import Foundation
import Geo
import HTTPServer
import Runtime

/// `GET /v1/territory?lat=&lng=` (bearer; docs/COMPATIBILITY.md#territory): the geohash-6 tile of the point, its
/// investables from Nearby (the same cascade, tile cache and brand join as `/v1/nearby`, asked from the tile's centre
/// so everyone in the tile sees the same denominator), then the caller's side from Identify's journal.
struct TerritoryRoute: Sendable {
    static let cacheControl = "private, max-age=60"
    /// A circle of 700 m around a geohash-6 cell's centre covers the whole cell (its half-diagonal is about 680 m).
    static let tileRadius: Double = 700
    static let placesLimit = 50
    static let maxSources = 8

    let caller: ServiceCaller
    let nearbyBudget: Duration
    let budget: Duration

    var route: Route {
        Route("GET", "/v1/territory", auth: .required) { context in
            guard let userId = context.caller.user?.id else { return .error(.unknownUser) }
            let numbers = QueryNumbers(context.request.head.query)
            guard let point = LatLng.validated(lat: try? numbers.double("lat"), lng: try? numbers.double("lng")),
                let tile = Geohash.encode(lat: point.lat, lng: point.lng, precision: 6),
                let center = Geohash.center(tile)
            else { return .error(.latLngRequired) }
            let nearby = await caller.call(
                .nearby, NearbyCommand.name, key: NearbyRoute.partitionKey(lat: center.lat, lng: center.lng),
                command: NearbyCommand(
                    lat: center.lat, lng: center.lng, radius: Self.tileRadius, limit: Self.placesLimit),
                budget: nearbyBudget, requestId: context.requestId)
            guard nearby.status == 200 else { return nearby }
            guard let places = try? JSONDecoder().decode(NearbyResponse.self, from: Data(nearby.body)) else {
                return .error(502, "nearby answer unreadable")
            }
            let investables = Self.investables(places)
            let answer = await caller.call(
                .identify, TerritoryFindsCommand.name, key: userId,
                command: TerritoryFindsCommand(userId: userId, tile: tile, tickers: investables.tickers),
                budget: budget, requestId: context.requestId)
            guard answer.status == 200 else { return answer }
            guard let finds = try? JSONDecoder().decode(TerritoryFinds.self, from: Data(answer.body)) else {
                return .error(.internalError)
            }
            return .json(
                200,
                TerritoryResponse(
                    tile: tile, investablesTotal: finds.investablesTotal, found: finds.found, pioneer: finds.pioneer,
                    sources: investables.sources, coop: finds.coop),
                headers: [("Cache-Control", Self.cacheControl)])
        }
    }

    /// The tickers of the tile's investables (in order, repeats included) and their citations deduplicated by
    /// provider and URL, first seen first, at most eight: an uncitable tile has fewer sources, never invented ones.
    static func investables(_ nearby: NearbyResponse) -> (tickers: [String], sources: [Source]) {
        var tickers: [String] = []
        var sources: [Source] = []
        var seen: Set<String> = []
        for investable in nearby.items.compactMap(\.investable) {
            if let symbol = investable.brand.ticker?.symbol { tickers.append(symbol) }
            for source in investable.sources where sources.count < maxSources {
                if seen.insert("\(source.provider.rawValue)|\(source.url ?? "")").inserted { sources.append(source) }
            }
        }
        return (tickers, sources)
    }
}
