import Contracts
import HTTPServer
import Messaging
import Testing

@testable import GatewayKit

/// Routes Identify and Nearby answer: finds, dex, progress, universe summary, resolve-comparable, nearby.
@Suite("Gateway routes: Identify and Nearby (in process)")
struct IdentifyAndNearbyRouteTests {
    static let find = #"{"brand":"Starbucks","confidence":"high"}"#

    static let cases: [RouteCase] = [
        RouteCase(
            "GET", "/v1/finds", signedIn: true,
            .command(.identify, "finds.list.v1", key: user, fields: ["userId": s(user), "limit": n(100)])),
        RouteCase(
            "GET", "/v1/finds", query: "limit=150.7", signedIn: true,
            .command(.identify, "finds.list.v1", key: user, fields: ["limit": n(150)])),
        RouteCase(
            "GET", "/v1/finds", query: "limit=5000", signedIn: true,
            .rejected(400, "limit must be between 1 and 200")),
        RouteCase(
            "GET", "/v1/finds", query: "limit=-1", signedIn: true, .rejected(400, "limit must be between 1 and 200")),
        RouteCase(
            "GET", "/v1/finds", query: "limit=ten", signedIn: true, .rejected(400, "limit must be a finite number")),
        RouteCase(
            "GET", "/v1/finds", query: "limit=1e400", signedIn: true, .rejected(400, "limit must be a finite number")),
        RouteCase("GET", "/v1/finds", .rejected(401, "missing bearer token")),
        RouteCase(
            "POST", "/v1/finds", body: #"{"finds":[\#(find)]}"#, signedIn: true,
            .command(
                .identify, "finds.replay.v1", key: user,
                fields: [
                    "userId": s(user), "finds": .array([.object(["brand": s("Starbucks"), "confidence": s("high")])]),
                ])),
        RouteCase(
            "POST", "/v1/finds", body: #"{"finds":[\#(find)]}"#, signedIn: true,
            headers: [.init(name: "Idempotency-Key", value: " k1 ")],
            .command(.identify, "finds.replay.v1", key: user, fields: ["idempotencyKey": s("k1")])),
        RouteCase(
            "POST", "/v1/finds", body: #"{"finds":[\#(find)]}"#, signedIn: true,
            headers: [.init(name: "Idempotency-Key", value: "  ")], .rejected(400, "invalid Idempotency-Key")),
        RouteCase(
            "POST", "/v1/finds", body: #"{"finds":[]}"#, signedIn: true, .rejected(400, "finds must hold 1-50 items")),
        RouteCase("POST", "/v1/finds", body: "not json", signedIn: true, .rejected(400, "invalid finds body")),
        RouteCase(
            "POST", "/v1/finds", body: #"{"finds":[{"brand":" ","confidence":"high"}]}"#, signedIn: true,
            .rejected(400, "finds[0]: brand must be 1-200 chars")),
        RouteCase(
            "POST", "/v1/finds",
            body: #"{"finds":[\#(find),{"brand":"X","confidence":"low","createdAt":"yesterday"}]}"#, signedIn: true,
            .rejected(400, "finds[1]: createdAt must be an ISO-8601 time")),
        RouteCase("POST", "/v1/finds", body: #"{"finds":[\#(find)]}"#, .rejected(401, "missing bearer token")),
        RouteCase(
            "GET", "/v1/dex", signedIn: true, .command(.identify, "dex.get.v1", key: user, fields: ["userId": s(user)])),
        RouteCase("GET", "/v1/dex", .rejected(401, "missing bearer token")),
        RouteCase(
            "GET", "/v1/progress", signedIn: true,
            .command(.identify, "progress.get.v1", key: user, fields: ["userId": s(user)])),
        RouteCase("GET", "/v1/progress", .rejected(401, "missing bearer token")),
        RouteCase(
            "GET", "/v1/universe/summary", signedIn: true,
            .command(.identify, "universe.summary.v1", key: user, fields: ["userId": s(user)])),
        RouteCase("GET", "/v1/universe/summary", .rejected(401, "missing bearer token")),
        RouteCase(
            "POST", "/v1/resolve-comparable", body: #"{"brand":" Starbucks ","hintSector":" Food "}"#,
            .command(
                .identify, "identify.resolve-comparable.v1", key: "starbucks",
                fields: ["brand": s("Starbucks"), "hintSector": s("Food")])),
        RouteCase("POST", "/v1/resolve-comparable", body: #"{"brand":"  "}"#, .rejected(400, "brand required")),
        RouteCase("POST", "/v1/resolve-comparable", body: #"{"hintSector":"Food"}"#, .rejected(400, "brand required")),
        RouteCase("POST", "/v1/resolve-comparable", .rejected(400, "brand required")),
        RouteCase(
            "GET", "/v1/nearby", query: "lat=40.7&lng=-74",
            .command(
                .nearby, "nearby.get.v1", key: "40.7,-74.0",
                fields: ["lat": n(40.7), "lng": n(-74), "radius": n(500), "limit": n(25)])),
        RouteCase(
            "GET", "/v1/nearby", query: "lat=40.7&lng=-74&radius=50000&limit=100&zoom=30",
            .command(
                .nearby, "nearby.get.v1", key: "40.7,-74.0",
                fields: ["radius": n(50_000), "limit": n(100), "zoom": n(30)])),
        RouteCase(
            "GET", "/v1/nearby", query: "lat=40.7&lng=-74&radius=90000",
            .rejected(400, "radius must be between 1 and 50000")),
        RouteCase(
            "GET", "/v1/nearby", query: "lat=40.7&lng=-74&radius=-1",
            .rejected(400, "radius must be between 1 and 50000")),
        RouteCase(
            "GET", "/v1/nearby", query: "lat=40.7&lng=-74&radius=1e308",
            .rejected(400, "radius must be between 1 and 50000")),
        RouteCase(
            "GET", "/v1/nearby", query: "lat=40.7&lng=-74&limit=500", .rejected(400, "limit must be between 1 and 100")),
        RouteCase(
            "GET", "/v1/nearby", query: "lat=40.7&lng=-74&zoom=40", .rejected(400, "zoom must be between 0 and 30")),
        RouteCase(
            "GET", "/v1/nearby", query: "lat=40.7&lng=-74", signedIn: true,
            .command(.nearby, "nearby.get.v1", key: "40.7,-74.0", fields: ["userId": s(user)])),
        RouteCase("GET", "/v1/nearby", query: "lat=91&lng=0", .rejected(400, "lat/lng required")),
        RouteCase("GET", "/v1/nearby", query: "lng=0", .rejected(400, "lat/lng required")),
        RouteCase(
            "GET", "/v1/nearby", query: "lat=1&lng=1&radius=1e400", .rejected(400, "radius must be a finite number")),
    ]

    @Test(arguments: cases) func route(_ routeCase: RouteCase) async throws { try await routeCase.check() }

    @Test func anAnonymousNearbyCarriesNoUser() async throws {
        let gateway = try GatewayUnderTest()
        let response = await gateway.send("GET", "/v1/nearby", query: "lat=1&lng=2")
        #expect(response.status == 200)
        #expect(gateway.transport.commands.first?.fields["userId"] == nil)
    }
}
