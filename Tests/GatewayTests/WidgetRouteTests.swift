import Contracts
import Foundation
import HTTPServer
import Messaging
import Synchronization
import Testing

@testable import GatewayKit

/// Answers Nearby with three places (two of the same brand) and Rating with a quote per symbol, recording all.
final class WidgetTransport: CommandTransport {
    let sent = Mutex<[OutgoingCommand]>([])
    /// The PNG bytes Rating "draws".
    let snapshot: [UInt8]

    init(snapshot: [UInt8] = []) { self.snapshot = snapshot }

    static func item(_ id: String, _ lat: Double, _ lng: Double, brand: String?, ticker: String?) -> String {
        let investable =
            brand.map { name in
                #","investable":{"brand":{"name":"\#(name)","isPublic":true,"ticker":{"symbol":"\#(ticker ?? "")"},"sector":"Consumer"},"comparables":[],"etfs":[],"confidence":"high","sources":[]}"#
            } ?? ""
        return
            #"{"place":{"id":"\#(id)","name":"Place \#(id)","location":{"lat":\#(lat),"lng":\#(lng)},"types":["cafe"]}\#(investable)}"#
    }

    func request(_ command: OutgoingCommand, budget: Duration) async throws(RequestError) -> Reply {
        sent.withLock { $0.append(command) }
        if command.name == NearbyCommand.name {
            let items = [
                Self.item("far", 40.7300, -74.0000, brand: "Starbucks", ticker: "SBUX"),
                Self.item("near", 40.7201, -74.0000, brand: "Starbucks", ticker: "SBUX"),
                Self.item("plain", 40.7250, -74.0000, brand: nil, ticker: nil),
            ]
            return Reply(status: 200, body: Array(#"{"items":[\#(items.joined(separator: ","))]}"#.utf8))
        }
        if command.name == MapSnapshotCommand.name {
            let reply = #"{"png":"\#(Data(snapshot).base64EncodedString())"}"#
            return Reply(status: 200, body: Array(reply.utf8))
        }
        guard let quote = try? JSONDecoder().decode(QuoteCommand.self, from: Data(command.body)) else {
            return Reply(status: 400, body: [])
        }
        let body =
            #"{"quote":{"symbol":"\#(quote.symbol)","price":101.5,"change":1,"changePct":0.99,"currency":"USD","ts":"2026-01-01T00:00:00Z","disclaimer":"d"}}"#
        return Reply(status: 200, body: Array(body.utf8))
    }
}

@Suite("Gateway routes: widgets (in process)")
struct WidgetRouteTests {
    func send(_ transport: WidgetTransport, _ query: String) async -> HTTPResponse {
        let route = WidgetRoutes(
            caller: ServiceCaller(client: transport), nearbyBudget: .seconds(1), quoteBudget: .seconds(1),
            publicURL: "https://api.test"
        )
        .routes[0]
        let head = HTTPRequestHead(method: "GET", path: "/v1/widget/nearby", rawQuery: query, headers: HTTPHeaders([]))
        return await route.handle(
            RouteContext(
                request: HTTPRequest(head: head), parameters: [:], requestId: "r1",
                caller: Caller(clientIP: "127.0.0.1")))
    }

    @Test func itemsAreNearestFirstWithOneQuotePerTicker() async throws {
        let transport = WidgetTransport()
        let response = await send(transport, "lat=40.72&lng=-74&limit=99")
        #expect(response.status == 200)
        #expect(
            response.headers.first { $0.0 == "Cache-Control" }?.1 == "public, max-age=120, stale-while-revalidate=300")
        let body = try JSONDecoder().decode(WidgetNearbyResponse.self, from: Data(response.body))
        #expect(body.items.map(\.name) == ["Starbucks", "Place plain", "Starbucks"])
        #expect(body.items.map(\.distanceM) == [11, 556, 1112])
        #expect(body.items.compactMap(\.price) == [101.5, 101.5])
        #expect(body.items[1].ticker == nil && body.items[1].price == nil)
        let commands = transport.sent.withLock { $0 }
        #expect(commands.filter { $0.name == QuoteCommand.name }.map(\.key) == ["SBUX"])  // once, not per place
        let nearby = try JSONDecoder().decode(
            NearbyCommand.self, from: Data(try #require(commands.first { $0.name == NearbyCommand.name }).body))
        #expect(nearby.limit == 12)
        #expect(nearby.radius == 1500)
    }

    @Test func aPointIsRequired() async {
        let transport = WidgetTransport()
        for query in ["lat=40.7", "lat=91&lng=0", "lat=abc&lng=1", "lat=1e400&lng=1"] {
            let response = await send(transport, query)
            #expect(response.status == 400)
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":"lat/lng required"}"#)
        }
        #expect(transport.sent.withLock { $0 }.isEmpty)
    }
}
