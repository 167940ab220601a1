import Contracts
import Foundation
import HTTPServer

/// `GET /v1/widget/map-snapshot` (docs/COMPATIBILITY.md#widgets), no auth: a PNG with a pin per place of
/// `/v1/widget/nearby` for the same query. With `GOOGLE_MAPS_API_KEY` it is Google Static Maps, proxied so the key
/// never reaches a widget; without it (beyond the original, which answers 501) Rating draws it with cairo — no map
/// tiles — and `X-Map-Snapshot` says so. `width`/`height` (default 480) are truncated and clamped to 1…640 (Google's
/// free size), as the original caps them; text that is not a finite number is a 400 naming the parameter.
struct MapSnapshotRoute: Sendable {
    static let cacheControl = "public, max-age=300, stale-while-revalidate=900"
    static let drawnNote = "drawn; no map tiles (GOOGLE_MAPS_API_KEY is not set)"

    let caller: ServiceCaller
    let nearbyBudget: Duration
    let drawBudget: Duration
    let google: StaticMapProxy?

    var route: Route {
        Route("GET", "/v1/widget/map-snapshot") { context in
            let raw = context.request.head.query
            let query: WidgetQuery
            let width: Int
            let height: Int
            do throws(HTTPResponse) {
                query = try WidgetQuery(raw)
                width = WidgetQuery.clamped(try QueryNumbers(raw).double("width"), default: 480, to: 1...640)
                height = WidgetQuery.clamped(try QueryNumbers(raw).double("height"), default: 480, to: 1...640)
            } catch { return error }
            let nearby = await caller.call(
                .nearby, NearbyCommand.name, key: NearbyRoute.partitionKey(lat: query.lat, lng: query.lng),
                command: query.command, budget: nearbyBudget, requestId: context.requestId)
            guard nearby.status == 200 else { return nearby }
            guard let places = try? JSONDecoder().decode(NearbyResponse.self, from: Data(nearby.body)) else {
                return .error(502, "nearby answer unreadable")
            }
            let pins = Self.pins(WidgetRoutes.items(places, origin: query))
            let origin = LatLng(lat: query.lat, lng: query.lng)
            if let google {
                switch await google.fetch(origin: origin, width: width, height: height, pins: pins) {
                case .success(let png): return Self.png(png, source: "google")
                case .failure(let response): return response
                }
            }
            let command = MapSnapshotCommand(
                lat: query.lat, lng: query.lng, radius: query.radius, width: width, height: height, pins: pins)
            let drawn = await caller.call(
                .rating, MapSnapshotCommand.name, key: NearbyRoute.partitionKey(lat: query.lat, lng: query.lng),
                command: command, budget: drawBudget, requestId: context.requestId)
            guard drawn.status == 200 else { return drawn }
            guard let reply = try? JSONDecoder().decode(MapSnapshotReply.self, from: Data(drawn.body)),
                let png = Data(base64Encoded: reply.png)
            else { return .error(502, "snapshot could not be drawn") }
            return Self.png(Array(png), source: Self.drawnNote)
        }
    }

    /// A pin per widget row: the ticker when investable, else the name.
    static func pins(_ items: [WidgetNearbyItem]) -> [MapSnapshotPin] {
        items.map {
            MapSnapshotPin(
                lat: $0.location.lat, lng: $0.location.lng, label: $0.ticker ?? $0.name, investable: $0.ticker != nil)
        }
    }

    static func png(_ bytes: [UInt8], source: String) -> HTTPResponse {
        HTTPResponse(
            status: 200,
            headers: [("Content-Type", "image/png"), ("Cache-Control", cacheControl), ("X-Map-Snapshot", source)],
            body: bytes)
    }
}
