import Foundation
import HTTPClient
import HTTPServer
import MCP
import Runtime
import Synchronization
import TestSupport
import Testing
import UpstreamFakes

/// The constellation's 26 conformance vectors, read at test time from `../shared/reference/data` (never copied into
/// the project): the library configured as the vectors' fixture server, served by the real HTTP server, with a
/// loopback fake peer that records what this site sent it.
@Suite struct ConstellationVectorsTests {
    static let vectorsURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // MCPTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .deletingLastPathComponent()  // its parent
        .appendingPathComponent("shared/reference/data/constellation-vectors.json")

    static let vectors: MCPValue? = {
        guard let data = FileManager.default.contents(atPath: vectorsURL.path) else {
            print("ConstellationVectorsTests skipped: no vectors at \(vectorsURL.path)")
            return nil
        }
        return MCPValue.parse(Array(data))
    }()

    @Test(.enabled(if: vectors != nil, "../shared/reference/data/constellation-vectors.json is absent"))
    func everyCaseAnswersAsTheConstellationExpects() async throws {
        let vectors = try #require(Self.vectors)
        let cases = try #require(vectors["cases"]?.array)
        #expect(cases.count == 26)
        var failures: [String] = []
        for vector in cases {
            let name = vector["name"]?.string ?? "?"
            let seen = try await Self.run(vector, fixture: try #require(vectors["fixture"]))
            for (path, want) in vector["expect"]?.object ?? [:] {
                if let problem = Self.mismatch(Self.at(seen, path), want, path: path) {
                    failures.append("\(name): \(problem)")
                }
            }
        }
        #expect(failures == [])
    }

    /// Runs one case against a fresh fixture server and peer: `{status, headers, json, outbound}`.
    static func run(_ vector: MCPValue, fixture: MCPValue) async throws -> MCPValue {
        let replies = fixture["peerReplies"] ?? [:]
        let peer = try FakeUpstream { request in
            let message = MCPValue.parse(request.body) ?? .null
            guard let id = message["id"], !id.isNull else { return .empty(202) }
            let method = message["method"]?.string ?? ""
            let reply = replies[method].map { MCPRPC.success(id, $0) } ?? MCPRPC.failure(id, -32601, "no")
            return .json(200, raw: reply.jsonBytes)
        }
        let transport = RedirectingTransport(to: peer.baseURL)
        let server = try MCPServer(fixtureConfiguration(fixture), transport: transport)
        let http = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: 2, name: "mcp-vectors"),
            handler: MCPHTTPHandler(server: server) { head in
                head.headers["X-Forwarded-For"]?.split(separator: ",").last.map {
                    $0.trimmingCharacters(in: .whitespaces)
                } ?? ""
            },
            logger: .init(label: "mcp-vectors", level: .error), metrics: .init())
        try http.start()
        defer {
            Task {
                await http.shutdown()
                await peer.shutdown()
            }
        }

        let request = vector["request"] ?? [:]
        var headers = [("X-Forwarded-For", "203.0.113.9")]
        for (key, value) in request["headers"]?.object ?? [:] { headers.append((key, value.string ?? "")) }
        let body = request["body"]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let response = try await testHTTPClient.execute(
            HTTPClientRequest(
                method: request["method"]?.string ?? "GET",
                url: "http://127.0.0.1:\(http.port)" + (request["path"]?.string ?? "/"), headers: headers,
                body: body.map(\.jsonBytes)))

        var responseHeaders: [String: MCPValue] = [:]
        for (key, value) in response.headers where responseHeaders[key.lowercased()] == nil {
            responseHeaders[key.lowercased()] = .string(value)
        }
        let outbound: [MCPValue] = zip(transport.urls, peer.requests).map { url, recorded in
            var headers: [String: MCPValue] = [:]
            for (key, value) in recorded.headers { headers[key.lowercased()] = .string(value) }
            return ["url": .string(url), "headers": .object(headers), "body": MCPValue.parse(recorded.body) ?? .null]
        }
        return [
            "status": .int(Int64(response.status)), "headers": .object(responseHeaders),
            "json": MCPValue.parse(response.body) ?? .null, "outbound": .array(outbound),
        ]
    }

    /// The fixture: `echo` tools say their `text` back, `relay` tools ask their peer's tool with the same text.
    static func fixtureConfiguration(_ fixture: MCPValue) -> MCPServerConfiguration {
        let tools = (fixture["tools"]?.array ?? []).map { spec -> MCPTool in
            let name = spec["name"]?.string ?? ""
            let description = spec["description"]?.string ?? ""
            if spec["kind"] == "relay" {
                let peer = spec["peer"]?.string ?? ""
                let tool = spec["tool"]?.string ?? ""
                return MCPTool(name: name, description: description, relay: true) { arguments, context in
                    await context.call(peer: peer, tool: tool, arguments: arguments["text"].map { ["text": $0] } ?? [:])
                        .output()
                }
            }
            return MCPTool(
                name: name, description: description,
                inputSchema: ["type": "object", "properties": ["text": ["type": "string"]]]
            ) { arguments, _ in .text(arguments["text"]?.string ?? "") }
        }
        let peers = (fixture["peers"]?.object ?? [:]).sorted { $0.key < $1.key }.map { name, spec in
            MCPPeerSpec(name: name, url: spec["url"]?.string, about: spec["about"]?.string ?? "")
        }
        return MCPServerConfiguration(
            name: fixture["name"]?.string ?? "", title: fixture["title"]?.string,
            origin: fixture["origin"]?.string ?? "",
            tools: tools, peers: peers)
    }

    /// The value at a dotted path (`json.result.tools.0.name`, `outbound.length`); nil when absent.
    static func at(_ root: MCPValue, _ path: String) -> MCPValue? {
        var value: MCPValue? = root
        for key in path.split(separator: ".").map(String.init) {
            switch value {
            case .object(let o): value = o[key]
            case .array(let a):
                if key == "length" {
                    value = .int(Int64(a.count))
                } else {
                    value = Int(key).flatMap { a.indices.contains($0) ? a[$0] : nil }
                }
            default: return nil
            }
        }
        return value
    }

    static func mismatch(_ got: MCPValue?, _ want: MCPValue, path: String) -> String? {
        if want["absent"] == .bool(true) {
            return got == nil ? nil : "\(path) should be absent, got \(got?.jsonText ?? "")"
        }
        if let prefix = want["startsWith"]?.string {
            return got?.string?.hasPrefix(prefix) == true
                ? nil : "\(path) = \(got?.jsonText ?? "nil") should start with \(prefix)"
        }
        return got == want ? nil : "\(path) = \(got?.jsonText ?? "nil"), want \(want.jsonText)"
    }
}

/// The real libcurl transport, sent to the loopback fake instead of the fixture's `https://other.example`,
/// remembering the address the server asked for.
final class RedirectingTransport: MCPPeerTransport {
    private let target: String
    private let asked = Mutex<[String]>([])
    private let inner = HTTPPeerTransport(client: testHTTPClient)

    init(to target: String) { self.target = target }

    var urls: [String] { asked.withLock { $0 } }

    func post(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration) async -> MCPPeerReply {
        asked.withLock { $0.append(url) }
        let path = URLComponents(string: url)?.path ?? "/"
        return await inner.post(url: target + path, headers: headers, body: body, timeout: timeout)
    }
}
