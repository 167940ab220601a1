import Contracts
import Foundation
import HTTPServer
import Messaging
import ServiceKit
import Testing

@testable import GatewayKit

/// What every route shares: matching, required auth, CORS, request ids, body checks, the service caller's 503/504,
/// the routes the gateway answers itself and the maps-token route.
@Suite("Gateway edge (in process)")
struct EdgeTests {
    @Test func anUnknownPathIsA404() async throws {
        let gateway = try GatewayUnderTest()
        for (method, path) in [("GET", "/v1/nope"), ("PUT", "/v1/nope"), ("GET", "/v1/rating/"), ("GET", "/")] {
            let response = await gateway.send(method, path)
            #expect(response.status == 404, "\(method) \(path)")
            #expect(response.errorMessage == "not found")
        }
        #expect(gateway.transport.commands.isEmpty)
    }

    @Test func aValidSessionOfALostUserIsRestoredFromItsEmail() async throws {
        let gateway = try GatewayUnderTest()
        let lost = try gateway.tokens.issueSession(userId: "usr_lost", email: "Lost@Example.com").token
        let response = await gateway.send("GET", "/v1/progress", headers: [("Authorization", "Bearer " + lost)])
        #expect(response.status == 200)
        #expect(gateway.transport.commands.map(\.key) == ["usr_lost"])
    }

    @Test func requiredAuthRefusesWithTheExactReason() async throws {
        let gateway = try GatewayUnderTest()
        let maps = try gateway.tokens.issueMaps(userId: GatewayUnderTest.userId).token
        // A lost user whose email now belongs to someone else cannot be re-created: unknown.
        let stranger = try gateway.tokens.issueSession(userId: "usr_gone", email: GatewayUnderTest.user.email).token
        let expired = try gateway.tokens.issueSession(
            userId: GatewayUnderTest.userId, email: GatewayUnderTest.user.email,
            now: Date(timeIntervalSinceNow: -40 * 24 * 3600)
        ).token
        let cases: [(String?, String)] = [
            (nil, "missing bearer token"), ("Basic abc", "missing bearer token"), ("Bearer abc", "invalid token"),
            ("Bearer " + maps, "wrong token purpose"), ("Bearer " + stranger, "unknown user"),
            ("Bearer " + expired, "invalid token"),
        ]
        for (authorization, message) in cases {
            let response = await gateway.send(
                "GET", "/v1/progress", headers: authorization.map { [("Authorization", $0)] } ?? [])
            #expect(response.status == 401)
            #expect(response.errorMessage == message)
        }
        #expect(gateway.transport.commands.isEmpty)
    }

    @Test func everyAnswerCarriesCORSAndTheRequestId() async throws {
        let gateway = try GatewayUnderTest()
        let preflight = await gateway.send("OPTIONS", "/v1/anything")
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Origin") == "*")
        #expect(preflight.header("Access-Control-Allow-Methods") == "GET, POST, PATCH, DELETE, OPTIONS")
        let kept = await gateway.send("GET", "/v1/rating/MCD", headers: [("X-Request-Id", "req-123")])
        #expect(kept.header("X-Request-Id") == "req-123")
        #expect(gateway.transport.commands.first?.requestId == "req-123")
        let replaced = await gateway.send("GET", "/v1/nope", headers: [("X-Request-Id", "not plain!")])
        #expect(replaced.header("X-Request-Id").map { !$0.isEmpty && $0 != "not plain!" } == true)
        #expect(replaced.header("Access-Control-Allow-Origin") == "*")
    }

    @Test func aBodyWithAnEscapedNULOrOverTheLimitIsRefusedBeforeTheRoute() async throws {
        let gateway = try GatewayUnderTest()
        let nul = await gateway.send("POST", "/v1/search/intent", body: #"{"q":"a\u0000b"}"#)
        #expect(nul.status == 400)
        #expect(nul.errorMessage == "request body must not contain NUL characters")
        let large = await gateway.send(
            "POST", "/v1/search/intent", body: #"{"q":""# + String(repeating: "a", count: 1 << 20) + #""}"#)
        #expect(large.status == 413)
        #expect(large.errorMessage == "request body too large")
        #expect(gateway.transport.commands.isEmpty)
    }

    @Test func noBrokerIsA503WithRetryAfterAndNoReplyA504() async throws {
        let down = try GatewayUnderTest(transport: RecordingTransport(.failure(.unavailable("no broker"))))
        let unavailable = await down.send("GET", "/v1/rating/MCD")
        #expect(unavailable.status == 503)
        #expect(unavailable.errorMessage == "rating service unavailable")
        #expect(unavailable.header("Retry-After") == "1")
        let slow = try GatewayUnderTest(transport: RecordingTransport(.failure(.timedOut)))
        let timedOut = await slow.send("GET", "/v1/quote", query: "symbol=AAPL")
        #expect(timedOut.status == 504)
        #expect(timedOut.errorMessage == "rating service timed out")
    }

    @Test func aReplyIsPassedOnWithItsStatusHeadersAndBody() async throws {
        let reply = Reply(status: 404, body: Array(#"{"error":"no such list"}"#.utf8), headers: [("X-Cache", "hit")])
        let gateway = try GatewayUnderTest(transport: RecordingTransport(.success(reply)))
        let response = await gateway.send("GET", "/v1/watchlist", headers: [("Authorization", try gateway.bearer())])
        #expect(response.status == 404)
        #expect(response.body == reply.body)
        #expect(response.header("Content-Type") == "application/json")
        #expect(response.header("X-Cache") == "hit")
    }

    @Test func healthAndConfigAreAnsweredByTheGatewayItself() async throws {
        let gateway = try GatewayUnderTest()
        let health = await gateway.send("GET", "/v1/health")
        #expect(health.status == 200)
        let fields = try JSONDecoder().decode([String: JSONValue].self, from: Data(health.body))
        #expect(fields["ok"] == .bool(true))
        #expect(fields["service"] == .string("mapvest-api"))
        #expect(fields["status"] == .string("ok"))
        let config = await gateway.send("GET", "/v1/config")
        #expect(config.status == 200)
        let decoded = try JSONDecoder().decode(ConfigResponse.self, from: Data(config.body))
        #expect(decoded.version == "dev")
        #expect(gateway.transport.commands.isEmpty)
    }

    @Test func theOpenAPIDocumentIsServedByteForByteAndCoversEveryRouteHere() async throws {
        let gateway = try GatewayUnderTest()
        let served = await gateway.send("GET", "/openapi.yaml")
        let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: GatewayUnderTest.openAPIFile)))
        #expect(served.status == 200)
        #expect(served.header("Content-Type") == "application/yaml")
        #expect(served.body == file)
        let document = OpenAPIDocument(bytes: file)
        // As at start: the routes and the admin endpoints.
        #expect(
            document.undocumented(gateway.handler.inner.router.served + AdminEndpoints.paths.map { ("GET", $0) }) == [])
    }

    @Test func thePlacesProxyTakesOnlyAMapsToken() async throws {
        let gateway = try GatewayUnderTest()
        let maps = "Bearer " + (try gateway.tokens.issueMaps(userId: GatewayUnderTest.userId).token)
        let session = try gateway.bearer()
        let refusals: [(String?, String)] = [
            (nil, "missing maps token"), (session, "wrong token purpose"), ("Bearer abc", "invalid maps token"),
        ]
        for (authorization, message) in refusals {
            let response = await gateway.send(
                "GET", "/v1/proxy/places", query: "location=40.7,-74",
                headers: authorization.map { [("Authorization", $0)] } ?? [])
            #expect(response.status == 401)
            #expect(response.errorMessage == message)
        }
        let invalid: [(String, String)] = [
            ("", "location=lat,lng required"), ("location=40.7", "location=lat,lng required"),
            ("location=1e2,3", "location=lat,lng required"), ("location=91,0", "location=lat,lng required"),
            ("location=1,2&radius=0", "radius must be a positive number <= 50000"),
            ("location=1,2&radius=50001", "radius must be a positive number <= 50000"),
            ("location=1,2&keyword=" + String(repeating: "k", count: 101), "keyword must be at most 100 characters"),
            ("location=1,2&type=Cafe", "type must be a place type such as cafe"),
        ]
        for (query, message) in invalid {
            let response = await gateway.send(
                "GET", "/v1/proxy/places", query: query, headers: [("Authorization", maps)])
            #expect(response.status == 400, "\(query)")
            #expect(response.errorMessage == message)
        }
        #expect(gateway.transport.commands.isEmpty)
        let ok = await gateway.send(
            "GET", "/v1/proxy/places", query: "location=40.7,-74&keyword=coffee&type=cafe",
            headers: [("Authorization", maps)])
        #expect(ok.status == 200)
        let command = gateway.transport.commands.first
        #expect(command?.service == .nearby)
        #expect(command?.name == "nearby.places-proxy.v1")
        #expect(command?.key == "40.7,-74.0")
        #expect(command?.fields["radius"] == .number(500))
        #expect(command?.fields["keyword"] == .string("coffee"))
        #expect(command?.fields["type"] == .string("cafe"))
    }
}
