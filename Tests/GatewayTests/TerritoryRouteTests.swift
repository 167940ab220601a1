import Contracts
import Foundation
import Geo
import HTTPServer
import Messaging
import Synchronization
import Testing

@testable import GatewayKit

/// Answers Nearby with two Starbucks, a Chipotle (two citations, one repeated) and a plain place, and Identify with
/// counts derived from the tickers it is sent; records every command.
final class TerritoryTransport: CommandTransport {
    let sent = Mutex<[OutgoingCommand]>([])
    let nearbyStatus: Int

    init(nearbyStatus: Int = 200) { self.nearbyStatus = nearbyStatus }

    static func item(_ id: String, brand: String?, ticker: String?, sources: [String]) -> String {
        let investable =
            brand.map { name in
                #","investable":{"brand":{"name":"\#(name)","isPublic":true,"ticker":{"symbol":"\#(ticker ?? "")"}},"comparables":[],"etfs":[],"confidence":"high","sources":[\#(sources.joined(separator: ","))]}"#
            } ?? ""
        return
            #"{"place":{"id":"\#(id)","name":"Place \#(id)","location":{"lat":40.7,"lng":-74},"types":["cafe"]}\#(investable)}"#
    }

    func request(_ command: OutgoingCommand, budget: Duration) async throws(RequestError) -> Reply {
        sent.withLock { $0.append(command) }
        if command.name == NearbyCommand.name {
            guard nearbyStatus == 200 else {
                return Reply(status: nearbyStatus, body: Array(#"{"error":"places lookup failed"}"#.utf8))
            }
            let manual = #"{"provider":"manual","fetchedAt":"2026-01-01T00:00:00Z","confidence":"high"}"#
            let exa =
                #"{"provider":"exa","url":"https://example.com/a","fetchedAt":"2026-01-01T00:00:00Z","confidence":"medium"}"#
            let items = [
                Self.item("a", brand: "Starbucks", ticker: "SBUX", sources: [manual]),
                Self.item("b", brand: "Starbucks", ticker: "SBUX", sources: [manual]),
                Self.item("c", brand: "Chipotle", ticker: "CMG", sources: [exa, manual]),
                Self.item("d", brand: nil, ticker: nil, sources: []),
            ]
            return Reply(status: 200, body: Array(#"{"items":[\#(items.joined(separator: ","))],"sources":[]}"#.utf8))
        }
        guard let asked = try? JSONDecoder().decode(TerritoryFindsCommand.self, from: Data(command.body)) else {
            return Reply(status: 400, body: [])
        }
        let finds = TerritoryFinds(
            investablesTotal: Set(asked.tickers).count, found: asked.tickers.contains("CMG") ? 1 : 0, pioneer: true,
            coop: TerritoryCoop(contributors: 2, threshold: 5, uncovered: false))
        return Reply(status: 200, body: Array((try? JSONEncoder().encode(finds)) ?? Data()))
    }
}

@Suite("Gateway routes: territory (in process)")
struct TerritoryRouteTests {
    static let user = User(id: "usr_t", email: "t@example.com", createdAt: "2026-01-01T00:00:00.000Z", scopes: ["user"])

    func send(_ transport: TerritoryTransport, _ query: String) async -> HTTPResponse {
        let route = TerritoryRoute(
            caller: ServiceCaller(client: transport), nearbyBudget: .seconds(1), budget: .seconds(1)
        )
        .route
        let head = HTTPRequestHead(method: "GET", path: "/v1/territory", rawQuery: query, headers: HTTPHeaders([]))
        return await route.handle(
            RouteContext(
                request: HTTPRequest(head: head), parameters: [:], requestId: "r1",
                caller: Caller(user: Self.user, clientIP: "127.0.0.1")))
    }

    @Test func theTileIsAskedFromItsCentreAndJoinedWithTheCallersFinds() async throws {
        let transport = TerritoryTransport()
        let response = await send(transport, "lat=40.7128&lng=-74.006")
        #expect(response.status == 200)
        #expect(response.headers.first { $0.0 == "Cache-Control" }?.1 == "private, max-age=60")
        let body = try JSONDecoder().decode(TerritoryResponse.self, from: Data(response.body))
        let tile = try #require(Geohash.encode(lat: 40.7128, lng: -74.006, precision: 6))
        #expect(body.tile == tile)
        #expect(body.investablesTotal == 2 && body.found == 1 && body.pioneer)
        #expect(body.coop == TerritoryCoop(contributors: 2, threshold: 5, uncovered: false))
        // Citations deduplicated by provider and URL, first seen first.
        #expect(body.sources.map(\.provider) == [.manual, .exa])

        let commands = transport.sent.withLock { $0 }
        let nearby = try JSONDecoder().decode(
            NearbyCommand.self, from: Data(try #require(commands.first { $0.name == NearbyCommand.name }).body))
        let center = try #require(Geohash.center(tile))
        #expect(nearby.lat == center.lat && nearby.lng == center.lng)
        #expect(nearby.radius == 700 && nearby.limit == 50 && nearby.userId == nil)
        let finds = try JSONDecoder().decode(
            TerritoryFindsCommand.self,
            from: Data(try #require(commands.first { $0.name == TerritoryFindsCommand.name }).body))
        #expect(finds == TerritoryFindsCommand(userId: "usr_t", tile: tile, tickers: ["SBUX", "SBUX", "CMG"]))
    }

    @Test func aPointIsRequiredAndACascadeFailureIsPassedOn() async {
        let transport = TerritoryTransport()
        for query in ["", "lat=40.7", "lat=91&lng=0", "lat=abc&lng=1", "lat=1e400&lng=1", "lat=null&lng=null"] {
            let response = await send(transport, query)
            #expect(response.status == 400)
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":"lat/lng required"}"#)
        }
        #expect(transport.sent.withLock { $0 }.isEmpty)

        let failing = TerritoryTransport(nearbyStatus: 502)
        let response = await send(failing, "lat=40.7&lng=-74")
        #expect(response.status == 502)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":"places lookup failed"}"#)
        #expect(failing.sent.withLock { $0 }.map(\.name) == [NearbyCommand.name])
    }
}
