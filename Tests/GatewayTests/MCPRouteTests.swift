import Contracts
import Foundation
import HTTPServer
import Messaging
import Testing

@testable import GatewayKit

/// The MCP paths mounted as gateway routes: JSON-RPC over them, Mapvest's tools sending the same commands as the
/// REST routes, and failures on MCP paths in JSON-RPC shape.
@Suite("Gateway routes: MCP (in process)")
struct MCPRouteTests {
    static let json = [("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")]

    static func object(_ response: HTTPResponse) -> [String: JSONValue] {
        (try? JSONDecoder().decode([String: JSONValue].self, from: Data(response.body))) ?? [:]
    }

    @Test func initializeAnswersInJSONRPC() async throws {
        let gateway = try GatewayUnderTest()
        let response = await gateway.send(
            "POST", "/mcp", headers: Self.json,
            body: #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#)
        #expect(response.status == 200)
        let body = Self.object(response)
        #expect(body["id"] == .number(1))
        guard case .object(let result)? = body["result"] else {
            Issue.record("no result: \(String(decoding: response.body, as: UTF8.self))")
            return
        }
        #expect(result["protocolVersion"] == .string("2025-06-18"))
        #expect(gateway.transport.commands.isEmpty)
    }

    @Test func aToolSendsTheSameCommandAsItsRESTRoute() async throws {
        let gateway = try GatewayUnderTest()
        let response = await gateway.send(
            "POST", "/mcp", headers: Self.json,
            body:
                #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_intent","arguments":{"query":"coffee"}}}"#
        )
        #expect(response.status == 200)
        let command = gateway.transport.commands.first
        #expect(command?.service == .rating)
        #expect(command?.name == "search.intent.v1")
        #expect(command?.key == "coffee")
        #expect(command?.fields["q"] == .string("coffee"))
    }

    @Test func aGetIsTheLibrarysAnswerNotTheAPIs404() async throws {
        let gateway = try GatewayUnderTest()
        let response = await gateway.send("GET", "/mcp")
        #expect(response.status == 405)
        #expect(Self.object(response)["jsonrpc"] == .string("2.0"))
    }

    @Test func anEdgeRefusalOnAnMCPPathIsJSONRPCShaped() async throws {
        let gateway = try GatewayUnderTest()
        let response = await gateway.send(
            "POST", "/mcp", headers: Self.json, body: #"{"jsonrpc":"2.0","id":3,"method":"ping","x":"\u0000"}"#)
        #expect(response.status == 400)
        let body = Self.object(response)
        #expect(body["jsonrpc"] == .string("2.0"))
        #expect(body["id"] == .null)
        #expect(
            body["error"]
                == .object([
                    "code": .number(-32000), "message": .string("request body must not contain NUL characters"),
                ]))
        let elsewhere = await gateway.send(
            "POST", "/v1/search/intent", headers: Self.json, body: #"{"q":"\u0000"}"#)
        #expect(elsewhere.errorMessage == "request body must not contain NUL characters")
    }
}
