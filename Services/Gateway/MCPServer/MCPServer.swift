import Foundation
import HTTPServer
import Runtime

/// Everything that names one MCP server: who it is, its tools (in `tools/list` order), its peers, and the origin
/// its manifest advertises (the operator's, never a request's `Host`).
public struct MCPServerConfiguration: Sendable {
    public var name: String
    public var title: String
    public var description: String
    public var version: String
    public var instructions: String
    /// Scheme, host and port the manifest advertises, e.g. `https://api.example`.
    public var origin: String
    public var tools: [MCPTool]
    public var peers: [MCPPeerSpec]
    /// Plain http to a loopback peer (a laptop, a test).
    public var allowLocal: Bool
    /// How long a call to a peer may take (the constellation's 25 s).
    public var peerTimeout: Duration
    /// Outbound calls per UTC day, per process.
    public var peerDailyCap: Int

    public init(
        name: String, title: String? = nil, description: String = "", version: String = "1.0.0",
        instructions: String = "", origin: String, tools: [MCPTool], peers: [MCPPeerSpec] = [],
        allowLocal: Bool = false, peerTimeout: Duration = .seconds(25), peerDailyCap: Int = 500
    ) {
        self.name = name
        self.title = title ?? name
        self.description = description
        self.version = version
        self.instructions = instructions
        self.origin = origin
        self.tools = tools
        self.peers = peers
        self.allowLocal = allowLocal
        self.peerTimeout = peerTimeout
        self.peerDailyCap = peerDailyCap
    }
}

/// One request as the server needs it: `body` is the parsed JSON, nil when missing, unreadable or over 64 KiB.
public struct MCPRequest: Sendable {
    public var method: String
    public var path: String
    public var headers: HTTPHeaders
    public var body: MCPValue?
    /// The caller's address for the per-address allowance ("" = unknown, never limited).
    public var address: String
    /// The request `id` exactly as sent (its JSON text), echoed in the answer byte for byte (`1e30` stays `1e30`).
    public var rawId: [UInt8]?

    public init(method: String, path: String, headers: HTTPHeaders = HTTPHeaders(), body: MCPValue?, address: String) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.address = address
    }

    /// From a complete HTTP request: the body is parsed for POST only, and only up to `MCPServer.bodyLimit` bytes.
    public init(_ request: HTTPRequest, address: String) {
        let readable = request.method == "POST" && request.body.count <= MCPServer.bodyLimit
        self.init(
            method: request.method, path: request.path, headers: request.headers,
            body: readable ? MCPValue.parse(request.body) : nil, address: address)
        if body != nil { rawId = StrictJSON.memberText(request.body, "id").map(Array.init) }
    }
}

/// The answer: a status, headers and a JSON-RPC body (nil = no body, as for a notification's 202).
public struct MCPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var json: MCPValue?
    /// The request id's JSON text as sent; when set, it replaces the (non-null) `id` the answer carries.
    public var rawId: [UInt8]?

    public init(status: Int, headers: [(String, String)], json: MCPValue?, rawId: [UInt8]? = nil) {
        self.status = status
        self.headers = headers
        self.json = json
        self.rawId = rawId
    }

    public var http: HTTPResponse {
        guard let json else { return .empty(status, headers: headers) }
        return .json(status, raw: Self.bytes(json, id: rawId), headers: headers)
    }

    /// `json` as compact text, its `id` written as `id` (the request's own text) when both are there.
    static func bytes(_ json: MCPValue, id: [UInt8]?) -> [UInt8] {
        guard let id, var object = json.object, let echoed = object["id"], !echoed.isNull else { return json.jsonBytes }
        object["id"] = nil
        guard !object.isEmpty else { return json.jsonBytes }
        return Array("{\"id\":".utf8) + id + [UInt8(ascii: ",")] + MCPValue.object(object).jsonBytes.dropFirst()
    }
}

/// A stateless MCP server over streamable HTTP: one JSON-RPC 2.0 message per POST, one JSON reply; `POST /mcp`
/// for its own tools, `POST /mcp/<peer>` relays to a peer one hop deeper, `GET /.well-known/mcp.json` (and
/// `/.well-known/mcp/server-card.json`) is the manifest. Every failure is a JSON-RPC error, never another shape.
public final class MCPServer: Sendable {
    public static let protocolVersions = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
    public static let bodyLimit = 64 * 1024
    public static let base = "/mcp"
    public static let manifestPaths = ["/.well-known/mcp.json", "/.well-known/mcp/server-card.json"]

    public let configuration: MCPServerConfiguration
    public let peers: MCPPeers
    let limiter: any MCPCallLimiter
    private let byName: [String: MCPTool]
    private let listing: MCPValue

    public init(
        _ configuration: MCPServerConfiguration, transport: any MCPPeerTransport,
        limiter: any MCPCallLimiter = InMemoryCallLimiter()
    ) throws(MCPConfigurationError) {
        guard MCPName.isValid(configuration.name) else {
            throw MCPConfigurationError("the server name must be a short slug (a-z, 0-9, dashes)")
        }
        self.configuration = configuration
        self.peers = MCPPeers(
            selfName: configuration.name, peers: configuration.peers, transport: transport,
            allowLocal: configuration.allowLocal, timeout: configuration.peerTimeout,
            dailyCap: configuration.peerDailyCap)
        self.limiter = limiter
        self.byName = Dictionary(configuration.tools.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.listing = ["tools": .array(configuration.tools.map(\.listing))]
    }

    /// Whether `path` (trailing slashes ignored) is one this server answers: the base, a peer under it, the manifest.
    public static func owns(_ path: String) -> Bool { route(path) != nil }

    private enum Target {
        case manifest
        case own
        case peer(String)
    }

    private static func route(_ raw: String) -> Target? {
        var path = Substring(raw)
        while path.count > 1, path.last == "/" { path = path.dropLast() }
        if manifestPaths.contains(String(path)) { return .manifest }
        if path == base { return .own }
        guard path.hasPrefix(base + "/") else { return nil }
        let peer = path.dropFirst(base.count + 1)
        return peer.contains("/") ? nil : .peer(peer.lowercased())
    }

    /// The answer for `request`, or nil when its path is not this server's (let the site answer it).
    public func handle(_ request: MCPRequest) async -> MCPResponse? {
        switch Self.route(request.path) {
        case nil: return nil
        case .manifest:
            guard request.method == "GET" else {
                return MCPResponse(
                    status: 405, headers: [("Allow", "GET")], json: MCPRPC.failure(nil, -32000, "GET the manifest"))
            }
            return MCPResponse(
                status: 200, headers: [("Access-Control-Allow-Origin", "*"), ("Cache-Control", "public, max-age=300")],
                json: manifest)
        case .own:
            guard request.method == "POST" else { return notHere }
            let (status, json) = await rpc(request.body, hop: MCPHop(header: { request.headers[$0] }), request.address)
            return MCPResponse(status: status, headers: [], json: json, rawId: request.rawId)
        case .peer(let name):
            guard request.method == "POST" else { return notHere }
            guard peers.peer(name) != nil else {
                return MCPResponse(status: 404, headers: [], json: MCPRPC.failure(nil, -32000, "no such peer"))
            }
            let id = request.body?["id"]
            guard await limiter.admit(request.address) else {
                return MCPResponse(status: 200, headers: [], json: MCPRPC.failure(id, -32002, Self.rateLimited))
            }
            guard let body = request.body, Self.isMessage(body) else {
                return MCPResponse(status: 400, headers: [], json: MCPRPC.failure(id, -32600, "invalid request"))
            }
            if id?.isNull == true { return Self.nullId }
            let (status, json) = await peers.relay(name, message: body, hop: MCPHop(header: { request.headers[$0] }))
            return MCPResponse(status: status, headers: [], json: json, rawId: request.rawId)
        }
    }

    /// What `GET /.well-known/mcp.json` answers.
    public var manifest: MCPValue {
        let c = configuration
        let endpoint = c.origin + Self.base
        return [
            "name": .string(c.name), "title": .string(c.title), "description": .string(c.description),
            "version": .string(c.version), "endpoint": .string(endpoint), "transport": "streamable-http",
            "stateless": true, "auth": "none", "protocolVersions": .array(Self.protocolVersions.map { .string($0) }),
            "tools": .array(
                c.tools.map {
                    [
                        "name": .string($0.name), "description": .string(MCPText.oneLine($0.description, 300)),
                        "readOnly": .bool($0.readOnly),
                    ]
                }),
            "peers": .array(
                peers.configured.map {
                    [
                        "name": .string($0.name), "endpoint": .string("\(endpoint)/\($0.name)"),
                        "about": .string($0.about),
                    ]
                }),
            "hop": ["max": .int(Int64(MCPHop.maxHop)), "headers": ["x-mcp-hop", "x-mcp-path"]],
        ]
    }

    /// The answer to a body that cannot be read (over `bodyLimit`, for a server that refuses it before reading).
    public static let unreadable = MCPResponse(
        status: 400, headers: [], json: MCPRPC.failure(nil, -32600, "invalid request"))

    /// `id: null` is neither a request nor a notification: refused on our own tools and before relaying to a peer.
    static let nullId = MCPResponse(
        status: 400, headers: [], json: MCPRPC.failure(nil, -32600, "invalid request: id must not be null"))

    static let rateLimited = "rate-limited: too many calls from here this minute; wait a little"

    private var notHere: MCPResponse {
        MCPResponse(
            status: 405, headers: [("Allow", "POST")],
            json: MCPRPC.failure(nil, -32000, "POST JSON-RPC to \(Self.base); this server keeps no stream or session"))
    }

    private static func isMessage(_ body: MCPValue) -> Bool {
        body.object != nil && body["jsonrpc"] == "2.0" && body["method"]?.string != nil
            && body["id"].map(MCPRPC.isValidId) != false
    }

    private func rpc(_ body: MCPValue?, hop: MCPHop, _ address: String) async -> (Int, MCPValue?) {
        if body?.array != nil { return (400, MCPRPC.failure(nil, -32600, "batches are not supported")) }
        guard let body, Self.isMessage(body), let method = body["method"]?.string else {
            return (400, MCPRPC.failure(body?["id"], -32600, "invalid request"))
        }
        guard let id = body["id"] else { return (202, nil) }
        guard !id.isNull else { return (Self.nullId.status, Self.nullId.json) }
        if let given = body["params"], given.object == nil {
            return (200, MCPRPC.failure(id, -32602, "invalid params: params must be an object"))
        }
        let params = body["params"]?.object ?? [:]
        switch method {
        case "initialize":
            let asked = params["protocolVersion"]?.string ?? ""
            let version = Self.protocolVersions.contains(asked) ? asked : Self.protocolVersions[0]
            let c = configuration
            return (
                200,
                MCPRPC.success(
                    id,
                    [
                        "protocolVersion": .string(version), "capabilities": ["tools": ["listChanged": false]],
                        "serverInfo": [
                            "name": .string(c.name), "title": .string(c.title), "version": .string(c.version),
                        ],
                        "instructions": .string(c.instructions.isEmpty ? c.description : c.instructions),
                    ])
            )
        case "ping": return (200, MCPRPC.success(id, [:]))
        case "tools/list": return (200, MCPRPC.success(id, listing))
        case "tools/call": return (200, await call(id, params, hop: hop, address))
        default: return (200, MCPRPC.failure(id, -32601, "method not found: \(method)"))
        }
    }

    private func call(_ id: MCPValue, _ params: [String: MCPValue], hop: MCPHop, _ address: String) async -> MCPValue {
        let name = params["name"]?.string
        guard let name, let tool = byName[name] else {
            let shown = name ?? params["name"].map(\.jsonText) ?? "undefined"
            return MCPRPC.failure(id, -32602, "unknown tool: \(shown)")
        }
        guard await limiter.admit(address) else {
            return MCPRPC.success(id, .object(MCPToolOutput.textResult(Self.rateLimited, isError: true)))
        }
        var result: [String: MCPValue]
        if tool.relay && hop.hop >= MCPHop.maxHop {
            let text =
                "too-deep: this call has already been relayed \(hop.hop) times, so \(configuration.name) will "
                + "not call out again (limit \(MCPHop.maxHop))"
            result = MCPToolOutput.textResult(text, isError: true)
        } else {
            let context = MCPToolContext(hop: hop, address: address, peers: peers)
            do {
                result = try await tool.run(params["arguments"]?.object ?? [:], context).normalised
            } catch {
                result = MCPToolOutput.textResult("the tool failed", isError: true)
            }
        }
        var meta = result["_meta"]?.object ?? [:]
        meta["constellation"] = [
            "server": .string(configuration.name), "hop": .int(Int64(hop.hop)),
            "path": .array((hop.path + [configuration.name]).map { .string($0) }),
        ]
        result["_meta"] = .object(meta)
        return MCPRPC.success(id, .object(result))
    }
}

/// A configuration the server cannot run with.
public struct MCPConfigurationError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
