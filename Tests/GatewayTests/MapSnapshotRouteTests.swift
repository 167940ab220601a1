import Contracts
import Foundation
import HTTPServer
import Messaging
import Synchronization
import TestSupport
import Testing
import UpstreamFakes

@testable import GatewayKit

/// The snapshot's pins come from the same rows as `/v1/widget/nearby`; Google answers when keyed, Rating draws
/// otherwise, and each path says which in `X-Map-Snapshot`.
@Suite("Gateway routes: widget map snapshot (in process)")
struct MapSnapshotRouteTests {
    static let fakePNG: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]

    func send(_ route: Route, _ query: String) async -> HTTPResponse {
        let head = HTTPRequestHead(method: "GET", path: route.template, rawQuery: query, headers: HTTPHeaders([]))
        return await route.handle(
            RouteContext(
                request: HTTPRequest(head: head), parameters: [:], requestId: "r1",
                caller: Caller(clientIP: "127.0.0.1")))
    }

    func routes(_ transport: WidgetTransport, google: StaticMapProxy? = nil) -> (widget: Route, snapshot: Route) {
        let caller = ServiceCaller(client: transport)
        return (
            WidgetRoutes(
                caller: caller, nearbyBudget: .seconds(1), quoteBudget: .seconds(1), publicURL: "https://api.test"
            ).routes[0],
            MapSnapshotRoute(caller: caller, nearbyBudget: .seconds(1), drawBudget: .seconds(1), google: google).route
        )
    }

    @Test func withoutAKeyRatingDrawsThePinsOfTheWidgetAnswer() async throws {
        let transport = WidgetTransport(snapshot: Self.fakePNG)
        let (widget, snapshot) = routes(transport)
        let query = "lat=40.72&lng=-74&limit=5"
        let nearby = try JSONDecoder().decode(
            WidgetNearbyResponse.self, from: Data(await send(widget, query).body))
        #expect(
            nearby.mapSnapshotUrl == "https://api.test/v1/widget/map-snapshot?lat=40.72&lng=-74&radius=1500&limit=5")
        let response = await send(snapshot, query + "&width=2000&height=300")
        #expect(response.status == 200)
        #expect(response.body == Self.fakePNG)
        #expect(response.headers.first { $0.0 == "Content-Type" }?.1 == "image/png")
        #expect(response.headers.first { $0.0 == "X-Map-Snapshot" }?.1 == MapSnapshotRoute.drawnNote)
        let sent = try #require(transport.sent.withLock { $0 }.last { $0.name == MapSnapshotCommand.name })
        let command = try JSONDecoder().decode(MapSnapshotCommand.self, from: Data(sent.body))
        #expect(command.width == 640 && command.height == 300)
        #expect(command.pins.map(\.label) == nearby.items.map { $0.ticker ?? $0.name })
        #expect(command.pins.map { LatLng(lat: $0.lat, lng: $0.lng) } == nearby.items.map(\.location))
        #expect(command.pins.map(\.investable) == [true, false, true])
    }

    @Test func withAKeyGoogleStaticMapsIsProxied() async throws {
        let status = Mutex(200)
        let google = try FakeUpstream { _ in
            HTTPResponse(status: status.withLock { $0 }, headers: [("Content-Type", "image/png")], body: Self.fakePNG)
        }
        let proxy = StaticMapProxy(
            http: testHTTPClient, apiKey: "maps key", baseURL: google.baseURL, timeout: .seconds(10))
        let transport = WidgetTransport(snapshot: [])
        let response = await send(routes(transport, google: proxy).snapshot, "lat=40.72&lng=-74")
        #expect(response.status == 200)
        #expect(response.body == Self.fakePNG)
        #expect(response.headers.first { $0.0 == "X-Map-Snapshot" }?.1 == "google")
        let request = try #require(google.requests.first)
        #expect(request.path == "/maps/api/staticmap")
        #expect(request.query["center"] == "40.72,-74.0")
        #expect(request.query["size"] == "480x480")
        #expect(request.query["key"] == "maps key")
        #expect(request.rawQuery?.components(separatedBy: "markers=").count == 5)  // origin + 3 places
        #expect(request.rawQuery?.contains("color:0xF0A36B%7Clabel:S%7C") == true)
        #expect(transport.sent.withLock { $0 }.allSatisfy { $0.name != MapSnapshotCommand.name })
        status.withLock { $0 = 500 }
        let failed = await send(routes(transport, google: proxy).snapshot, "lat=40.72&lng=-74")
        #expect(failed.status == 502)
        #expect(String(decoding: failed.body, as: UTF8.self) == #"{"error":"static map failed: 500"}"#)
        await google.shutdown()
    }
}
