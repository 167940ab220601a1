import Contracts
import Foundation
import HTTPServer
import Runtime
import Testing

@testable import GatewayKit

/// The edge as strict as docs/openapi.yaml: RFC 8259 JSON only, documented ranges and enums refused with a 400
/// naming the field, a 405 for a method a path does not serve, and MCP ids echoed as sent.
@Suite("Gateway edge: strict input (in process)")
struct StrictEdgeTests {
    static let label121 = String(repeating: "a", count: 121)
    static let brief = String(repeating: "b", count: 30)

    static let cases: [RouteCase] = [
        RouteCase(
            "POST", "/v1/search/intent", body: #"{"q":"coffee",}"#, .rejected(400, "q required (1-200 chars)")),
        RouteCase(
            "POST", "/v1/search/intent", body: #"{"q":"coffee","lng":181,"lat":0}"#,
            .rejected(400, "lng must be between -180 and 180")),
        RouteCase(
            "POST", "/v1/search/intent", body: #"{"q":"coffee","lat":-90.5}"#,
            .rejected(400, "lat must be between -90 and 90")),
        RouteCase(
            "POST", "/v1/search/intent", body: #"{"q":"coffee","lat":10,"lng":180}"#,
            .command(.rating, "search.intent.v1", key: "coffee", fields: ["lat": n(10), "lng": n(180)])),
        RouteCase(
            "GET", "/v1/chart/price", query: "ticker=aapl&period=2y&interval=15m",
            .rejected(400, "interval 15m needs period 5d or 1mo")),
        RouteCase(
            "GET", "/v1/chart/price", query: "ticker=aapl&period=5d&interval=15m",
            .command(.rating, "chart.get.v1", key: "AAPL", fields: ["period": s("5d"), "interval": s("15m")])),
        RouteCase("DELETE", "/v1/watchlist/..", signedIn: true, .rejected(400, "invalid ticker")),
        RouteCase(
            "POST", "/v1/watchlist/add", body: #"{"ticker":".."}"#, signedIn: true, .rejected(400, "invalid ticker")),
        RouteCase(
            "POST", "/v1/alerts", body: #"{"ticker":"AAPL","kind":"price_above","threshold":"0x10"}"#, signedIn: true,
            .rejected(400, "threshold must be a finite number")),
        RouteCase(
            "POST", "/v1/alerts", body: #"{"ticker":"AAPL","kind":"price_above","threshold":"12.5"}"#, signedIn: true,
            .command(.briefs, "alerts.create.v1", key: user, fields: ["threshold": n(12.5)])),
        RouteCase(
            "POST", "/v1/alerts", body: #"{"ticker":"AAPL","kind":"price_above","threshold":1,}"#, signedIn: true,
            .rejected(400, "ticker required")),
        RouteCase(
            "POST", "/v1/local-brief/save", body: #"{"label":"\#(label121)","lat":1,"lng":2,"brief":"\#(brief)"}"#,
            signedIn: true, .rejected(400, "label must be at most 120 characters")),
        RouteCase(
            "POST", "/v1/backtest", body: #"{"tickers":["AAPL"],"period":1}"#, signedIn: true,
            .rejected(400, "period must be one of 1mo, 3mo, 6mo, 1y")),
        // A field of the wrong type is refused, not ignored; null is absent.
        RouteCase(
            "POST", "/v1/alerts", body: #"{"ticker":"AAPL","kind":"price_above","threshold":1,"note":{}}"#,
            signedIn: true, .rejected(400, "note must be a string")),
        RouteCase(
            "POST", "/v1/alerts", body: #"{"ticker":"AAPL","kind":"price_above","threshold":1,"note":null}"#,
            signedIn: true, .command(.briefs, "alerts.create.v1", key: user, fields: ["threshold": n(1)])),
        RouteCase(
            "POST", "/v1/backtest", body: #"{"tickers":["AAPL"],"listId":{}}"#, signedIn: true,
            .rejected(400, "listId must be a string")),
        RouteCase(
            "POST", "/v1/agent/chat", body: #"{"message":"hi","conversationId":"c1","threadId":"a b"}"#,
            headers: [.init(name: "X-Device-Id", value: "d1")], .rejected(400, "invalid conversationId")),
    ]

    @Test(arguments: cases) func route(_ routeCase: RouteCase) async throws { try await routeCase.check() }

    @Test func aNumberPastAWideRangeIsA400NotATrap() {
        let numbers = QueryNumbers(["n": "1e19", "m": "-1e300", "k": "12"])
        for name in ["n", "m"] {
            #expect(throws: HTTPResponse.self) { try numbers.integer(name, default: 0, range: Int.min...Int.max) }
        }
        #expect(throws: HTTPResponse.self) { try numbers.integer("k", default: 0, range: 1...10) }
        #expect((try? numbers.integer("k", default: 0, range: 1...20)) == 12)
    }

    @Test func trailingCommasAreNotJSON() async throws {
        let gateway = try GatewayUnderTest()
        let find = #"{"ticker":"SBUX","brand":"Starbucks","lat":1,"lng":2,}"#
        let response = await gateway.send(
            "POST", "/v1/finds", headers: [("Authorization", try gateway.bearer())], body: #"{"finds":[\#(find),],}"#)
        #expect(response.status == 400)
        #expect(response.errorMessage == "invalid finds body")
        #expect(gateway.transport.commands.isEmpty)
    }

    @Test(arguments: [
        ("{}", true), ("[1,2]", true), (" {\"a\":[true,false,null,-0.5e+3,\"\\u00e9\\n\"]} ", true), ("1e30", true),
        ("[1,]", false), ("{\"a\":1,}", false), ("{,}", false), ("[01]", false), ("[1.]", false), ("[.5]", false),
        ("NaN", false), ("'a'", false), ("{\"a\" 1}", false), ("\"\\x\"", false), ("\"a\tb\"", false), ("", false),
        ("1 2", false), ("// c\n1", false), ("[+1]", false), ("[1e]", false),
    ])
    func strictJSONSyntax(_ text: String, _ valid: Bool) {
        #expect(StrictJSON.isValid(Array(text.utf8)) == valid, "\(text)")
    }

    @Test func aMethodAPathDoesNotServeIsA405NamingTheOnesItDoes() async throws {
        let gateway = try GatewayUnderTest()
        for method in ["TRACE", "PUT"] {
            let response = await gateway.send(method, "/v1/finds")
            #expect(response.status == 405, "\(method)")
            #expect(response.errorMessage == "method not allowed")
            let allow = response.headers.first { $0.0 == "Allow" }?.1 ?? ""
            #expect(allow.contains("GET") && allow.contains("POST") && !allow.contains("TRACE"), "\(allow)")
        }
        let probe = await gateway.send("TRACE", "/healthz")
        #expect(probe.status == 405)
        #expect(probe.headers.first { $0.0 == "Allow" }?.1.contains("GET") == true)
        #expect(await gateway.send("TRACE", "/v1/nowhere").status == 404)
        #expect(gateway.transport.commands.isEmpty)
    }

    static let json = [("Content-Type", "application/json")]

    @Test(arguments: ["1e30", "1000000000000000000000000000000", "-0.50", #""\u0041b""#, "7"])
    func mcpEchoesTheIdExactlyAsSent(_ id: String) async throws {
        let gateway = try GatewayUnderTest()
        let response = await gateway.send(
            "POST", "/mcp", headers: Self.json, body: #"{"jsonrpc":"2.0","id": \#(id) ,"method":"ping"}"#)
        #expect(response.status == 200)
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(text.hasPrefix(#"{"id":\#(id),"#), "\(text)")
        #expect(StrictJSON.isValid(response.body))
    }

    /// On our own tools and on the way to a peer alike.
    @Test(arguments: ["/mcp", "/mcp/lattice"])
    func anMCPNullIdIsAnInvalidRequest(_ path: String) async throws {
        let gateway = try GatewayUnderTest()
        let response = await gateway.send(
            "POST", path, headers: Self.json, body: #"{"jsonrpc":"2.0","id":null,"method":"ping"}"#)
        #expect(response.status == 400)
        let body = MCPRouteTests.object(response)
        #expect(body["id"] == .null)
        guard case .object(let error)? = body["error"] else {
            Issue.record("no error: \(String(decoding: response.body, as: UTF8.self))")
            return
        }
        #expect(error["code"] == .number(-32600))
    }

    @Test func mcpParamsThatAreNotAnObjectAreInvalidParams() async throws {
        let gateway = try GatewayUnderTest()
        let response = await gateway.send(
            "POST", "/mcp", headers: Self.json,
            body: #"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":[null,null]}"#)
        let body = MCPRouteTests.object(response)
        guard case .object(let error)? = body["error"] else {
            Issue.record("no error: \(String(decoding: response.body, as: UTF8.self))")
            return
        }
        #expect(error["code"] == .number(-32602))
        #expect(body["id"] == .number(4))
        #expect(gateway.transport.commands.isEmpty)
    }

    @Test func anMCPBodyWithATrailingCommaIsNotJSON() async throws {
        let gateway = try GatewayUnderTest()
        let response = await gateway.send(
            "POST", "/mcp", headers: Self.json, body: #"{"jsonrpc":"2.0","id":5,"method":"ping",}"#)
        #expect(response.status == 400)
        #expect(MCPRouteTests.object(response)["error"] != nil)
    }
}
