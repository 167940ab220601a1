import Contracts
import Foundation
import HTTPServer
import Messaging
import Runtime
import Synchronization
import Testing

@testable import GatewayKit

/// The last operations whose code and docs/openapi.yaml disagreed (issue 26): widget numbers are clamped as the
/// original clamps them but text that is not a number is a 400; identify's empty image is refused and its text
/// fields read as documented; finds take every RFC 3339 time; push register takes only the token the pattern names.
@Suite("Gateway edge: code and document agree (in process)")
struct DocumentAgreementTests {
    static let expo = "ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]"
    static let longContent = String(repeating: "a", count: 481)

    static let cases: [RouteCase] = [
        RouteCase(
            "POST", "/v1/push/register", body: #"{"token":"ExponentPushToken[é]"}"#, signedIn: true,
            .rejected(400, "valid ExponentPushToken required")),
        RouteCase(
            "POST", "/v1/push/register", body: #"{"token":"ExponentPushToken[a\tb]"}"#, signedIn: true,
            .rejected(400, "valid ExponentPushToken required")),
        RouteCase(
            "POST", "/v1/push/register", body: #"{"token":"ExpoPushToken[\#(longContent)]"}"#, signedIn: true,
            .rejected(400, "valid ExponentPushToken required")),
        RouteCase(
            "POST", "/v1/push/register",
            body: #"{"token":"\#(expo)","deviceId":"\#(String(repeating: " ", count: 129))"}"#, signedIn: true,
            .rejected(400, "valid ExponentPushToken required")),
        RouteCase(
            "POST", "/v1/push/register", body: #"{"token":" \#(expo) ","deviceId":"  "}"#, signedIn: true,
            .command(.push, "push.register.v1", key: user, fields: ["token": s(expo), "platform": s("ios")])),
        RouteCase(
            "POST", "/v1/finds",
            body: #"{"finds":[{"brand":"X","confidence":"low","createdAt":"0999-02-28t23:59:59.123456789+23:59"}]}"#,
            signedIn: true, .command(.identify, "finds.replay.v1", key: user)),
        RouteCase(
            "POST", "/v1/finds",
            body: #"{"finds":[{"brand":"X","confidence":"low","createdAt":"2026-02-29T00:00:00Z"}]}"#,
            signedIn: true, .rejected(400, "finds[0]: createdAt must be an ISO-8601 time")),
        RouteCase(
            "POST", "/v1/finds",
            body: #"{"finds":[{"brand":"X","confidence":"low","createdAt":"2026-01-01T00:00:00+0000"}]}"#,
            signedIn: true, .rejected(400, "finds[0]: createdAt must be an ISO-8601 time")),
    ]

    @Test(arguments: cases) func route(_ routeCase: RouteCase) async throws { try await routeCase.check() }

    @Test(arguments: [
        ("1970-01-01T00:00:00Z", 0.0),
        ("1970-01-01T01:00:00+01:00", 0.0),
        ("1969-12-31T23:59:59.5z", -0.5),
        ("0000-01-01T00:00:00Z", -62_167_219_200.0),
        ("2000-02-29T12:00:00-00:30", 951_827_400.0),
        ("9999-12-31T23:59:59Z", 253_402_300_799.0),
    ])
    func rfc3339TimesAreRead(_ text: String, _ seconds: Double) throws {
        let date = try #require(RFC3339.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 1e-6)
    }

    @Test(arguments: [
        "1970-01-01 00:00:00Z", "1970-01-01T00:00Z", "1970-01-01T00:00:60Z", "1970-13-01T00:00:00Z",
        "1900-02-29T00:00:00Z", "1970-01-01T24:00:00Z", "1970-01-01T00:00:00+24:00", "1970-01-01T00:00:00.Z",
        "1970-01-01T00:00:00", "+1970-01-01T00:00:00Z", "1970-01-01T00:00:00Zx", "",
    ])
    func otherTextIsNoTime(_ text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    /// What the edge accepts, Identify's store reads as the same instant.
    @Test func theStoreReadsWhatTheEdgeAccepts() {
        let text = "0999-06-01T12:00:00.25-05:00"
        #expect(Timestamp.parse(text) == RFC3339.parse(text))
        #expect(RFC3339.parse(text) != nil)
    }

    @Test func widgetNumbersAreClampedButNotGuessed() async throws {
        let transport = WidgetTransport(snapshot: MapSnapshotRouteTests.fakePNG)
        let routes = MapSnapshotRouteTests().routes(transport)
        for (route, query, name) in [
            (routes.widget, "lat=1&lng=2&radius=far", "radius"), (routes.widget, "lat=1&lng=2&limit=ten", "limit"),
            (routes.snapshot, "lat=1&lng=2&width=wide", "width"),
            (routes.snapshot, "lat=1&lng=2&height=1e400", "height"),
        ] {
            let response = await MapSnapshotRouteTests().send(route, query)
            #expect(response.status == 400)
            #expect(response.errorMessage == "\(name) must be a finite number")
        }
        #expect(transport.sent.withLock { $0 }.isEmpty)

        let response = await MapSnapshotRouteTests().send(
            routes.snapshot, "lat=1&lng=2&radius=-1&limit=1e308&width=0.5&height=")
        #expect(response.status == 200)
        let sent = transport.sent.withLock { $0 }
        let nearby = try JSONDecoder().decode(
            NearbyCommand.self, from: Data(try #require(sent.first { $0.name == NearbyCommand.name }).body))
        #expect(nearby.radius == 1 && nearby.limit == 12)
        let drawn = try JSONDecoder().decode(
            MapSnapshotCommand.self, from: Data(try #require(sent.first { $0.name == MapSnapshotCommand.name }).body))
        #expect(drawn.width == 1 && drawn.height == 480)
    }

    @Test func identifyRefusesAnEmptyImageAndReadsItsTextAsDocumented() async throws {
        let gateway = try GatewayUnderTest()
        let headers = IdentifyRouteTests.multipart + [("X-Device-Id", "dev-1")]
        let empty =
            "--B\r\nContent-Disposition: form-data; name=\"image\"; filename=\"p.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n\r\n--B--\r\n"
        let refused = await gateway.send("POST", "/v1/identify", headers: headers, body: empty)
        #expect(refused.status == 400)
        #expect(refused.errorMessage == "image required")
        #expect(gateway.transport.commands.isEmpty)

        let hint = String(repeating: "h", count: 200)
        let form = IdentifyRouteTests.form(fields: ["hint": hint, "lat": "north", "lng": "2", "roi": "[1]"])
        let accepted = await gateway.send("POST", "/v1/identify", headers: headers, body: form)
        #expect(accepted.status == 200)
        let command = try #require(gateway.transport.commands.first)
        #expect(command.fields["hint"] == .string(String(hint.prefix(140))))
        #expect(command.fields["location"] == nil || command.fields["location"] == .null)
        #expect(command.fields["roi"] == nil || command.fields["roi"] == .null)
    }
}
