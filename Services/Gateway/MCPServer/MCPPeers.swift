import Foundation
import Synchronization

/// A peer as the operator names it: `url` nil (or unusable) means listed as not configured, never guessed.
public struct MCPPeerSpec: Sendable {
    public var name: String
    public var url: String?
    public var about: String

    public init(name: String, url: String?, about: String) {
        self.name = name
        self.url = url
        self.about = about
    }
}

/// The registry of sites this one can reach, and the way out: every call carries the hop headers one hop deeper,
/// waits at most `timeout`, and counts against a daily cap of outbound calls (per process, per UTC day).
/// Peer tool lists are cached for `toolsTTL`.
public final class MCPPeers: Sendable {
    /// A vetted registry entry.
    public struct Peer: Sendable, Equatable {
        public let name: String
        /// The usable address, or nil: not configured.
        public let url: String?
        public let about: String
        public let host: String
    }

    /// A peer tool as `tools(peer:hop:)` summarises it.
    public struct PeerTool: Sendable, Equatable {
        public let name: String
        public let description: String
        public let required: [String]
        public let properties: [String]
    }

    /// The headers every outbound call carries besides the hop headers.
    static let protocolVersion = "2025-06-18"
    static let reserved: Set<String> = ["f", "meta", "peers", "well-known"]

    public let selfName: String
    /// In the order the operator listed them.
    public let registry: [Peer]
    let transport: any MCPPeerTransport
    let timeout: Duration
    let toolsTTL: Duration
    let budget: DailyAllowance
    let now: @Sendable () -> Date

    private struct State {
        var seq: Int64 = 0
        var tools: [String: (tools: [PeerTool], at: Date)] = [:]
    }
    private let state = Mutex(State())

    public init(
        selfName: String, peers: [MCPPeerSpec], transport: any MCPPeerTransport, allowLocal: Bool = false,
        timeout: Duration = .seconds(25), toolsTTL: Duration = .seconds(300), dailyCap: Int = 500,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.selfName = selfName
        var seen = Set<String>()
        var registry: [Peer] = []
        for spec in peers.prefix(16) {
            let name = spec.name.lowercased()
            guard MCPName.isValid(name), !Self.reserved.contains(name), name != selfName, seen.insert(name).inserted
            else { continue }
            let vetted = spec.url.flatMap { Self.vet($0, allowLocal: allowLocal) }
            registry.append(
                Peer(name: name, url: vetted?.url, about: MCPText.oneLine(spec.about, 240), host: vetted?.host ?? ""))
        }
        self.registry = registry
        self.transport = transport
        self.timeout = timeout
        self.toolsTTL = toolsTTL
        self.budget = DailyAllowance(cap: dailyCap, now: now)
        self.now = now
    }

    /// https only (plain http only to loopback when `allowLocal`), no credentials; the fragment is dropped.
    public static func vet(_ raw: String, allowLocal: Bool) -> (url: String, host: String)? {
        guard var parts = URLComponents(string: raw.trimmingCharacters(in: .whitespacesAndNewlines)),
            let scheme = parts.scheme?.lowercased(), let host = parts.host, !host.isEmpty,
            parts.user == nil, parts.password == nil
        else { return nil }
        let loopback = ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host.lowercased())
        guard scheme == "https" || (scheme == "http" && allowLocal && loopback) else { return nil }
        parts.fragment = nil
        parts.scheme = scheme
        if parts.path.isEmpty { parts.path = "/" }
        guard let url = parts.string else { return nil }
        return (url, parts.port.map { "\(host):\($0)" } ?? host)
    }

    public func peer(_ name: String) -> Peer? {
        let name = name.lowercased()
        return registry.first { $0.name == name }
    }

    /// The configured peers (those with a usable address), for the manifest.
    public var configured: [Peer] { registry.filter { $0.url != nil } }

    /// The tools one peer offers (summarised, at most 40), cached for `toolsTTL`.
    public func tools(peer name: String, hop: MCPHop) async -> Result<[PeerTool], MCPPeerFailure> {
        guard let peer = peer(name) else { return .failure(MCPPeerFailure("no-such-peer")) }
        guard let url = peer.url else { return .failure(MCPPeerFailure("not-configured")) }
        let cached = state.withLock { $0.tools[peer.name] }
        if let cached, now().timeIntervalSince(cached.at) < toolsTTL.seconds { return .success(cached.tools) }
        guard hop.hop < MCPHop.maxHop else { return .failure(MCPPeerFailure("too-deep")) }
        guard budget.take() else { return .failure(MCPPeerFailure("daily-cap")) }
        switch await rpc(url: url, method: "tools/list", params: [:], hop: hop) {
        case .failure(let failure): return .failure(failure)
        case .success(let result):
            let tools = (result["tools"]?.array ?? []).prefix(40).map { tool in
                PeerTool(
                    name: String((tool["name"]?.string ?? "").prefix(64)),
                    description: MCPText.oneLine(tool["description"]?.string ?? "", 300),
                    required: (tool["inputSchema"]?["required"]?.array ?? []).prefix(8).compactMap(\.string),
                    properties: Array((tool["inputSchema"]?["properties"]?.object ?? [:]).keys.sorted().prefix(12)))
            }
            state.withLock { $0.tools[peer.name] = (tools, now()) }
            return .success(tools)
        }
    }

    /// Calls one tool on one peer, one hop deeper. Never throws.
    public func call(_ name: String, tool: String, arguments: [String: MCPValue], hop: MCPHop) async
        -> MCPPeerCallResult
    {
        guard let peer = peer(name) else { return .failed(reason: "no-such-peer") }
        guard let url = peer.url else { return .failed(reason: "not-configured") }
        guard hop.hop < MCPHop.maxHop else { return .failed(reason: "too-deep") }
        guard budget.take() else { return .failed(reason: "daily-cap") }
        let params: MCPValue = ["name": .string(String(tool.prefix(64))), "arguments": .object(arguments)]
        switch await rpc(url: url, method: "tools/call", params: params, hop: hop) {
        case .failure(let failure): return .failed(reason: failure.reason)
        case .success(let result):
            return .answered(text: Self.resultText(result), isError: result["isError"] == .bool(true))
        }
    }

    /// Forwards one JSON-RPC message as it is, one hop deeper: the HTTP status and the peer's own reply
    /// (nil for a notification, answered 202).
    public func relay(_ name: String, message: MCPValue, hop: MCPHop) async -> (status: Int, json: MCPValue?) {
        let id = message["id"] ?? .null
        guard let peer = peer(name) else { return (404, MCPRPC.failure(id, -32000, "no such peer")) }
        guard let url = peer.url else {
            return (200, MCPRPC.failure(id, -32000, "\(peer.name) is not configured on this site"))
        }
        guard hop.hop < MCPHop.maxHop else {
            return (200, MCPRPC.failure(id, -32001, "too deep: this call has already been relayed \(hop.hop) times"))
        }
        guard budget.take() else { return (200, MCPRPC.failure(id, -32002, "too many relayed calls today")) }
        let reply = await transport.post(url: url, headers: headers(hop), body: message.jsonBytes, timeout: timeout)
        if id.isNull { return (202, nil) }
        if case .response(_, let type, let body) = reply, let matched = Self.parseReply(type, body, id: id) {
            return (200, matched)
        }
        return (
            200,
            MCPRPC.failure(id, -32003, "\(peer.name) did not answer (\(reply.failureReason ?? "http \(reply.status)"))")
        )
    }

    private func headers(_ hop: MCPHop) -> [(String, String)] {
        [
            ("content-type", "application/json"), ("accept", "application/json, text/event-stream"),
            ("mcp-protocol-version", Self.protocolVersion),
        ] + hop.outboundHeaders(selfName: selfName)
    }

    private func rpc(url: String, method: String, params: MCPValue, hop: MCPHop) async
        -> Result<MCPValue, MCPPeerFailure>
    {
        let id = MCPValue.int(
            state.withLock { s in
                s.seq += 1
                return s.seq
            })
        let message: MCPValue = ["jsonrpc": "2.0", "id": id, "method": .string(method), "params": params]
        let reply = await transport.post(url: url, headers: headers(hop), body: message.jsonBytes, timeout: timeout)
        guard case .response(_, let type, let body) = reply, let matched = Self.parseReply(type, body, id: id) else {
            return .failure(
                MCPPeerFailure(
                    reply.failureReason ?? (reply.status < 300 ? "no JSON-RPC reply" : "http \(reply.status)")))
        }
        if let error = matched["error"] {
            return .failure(MCPPeerFailure(MCPText.oneLine(error["message"]?.string ?? "error", 200)))
        }
        return .success(matched["result"] ?? .null)
    }

    /// The JSON-RPC reply with `id` out of a JSON body (or a JSON array) or an event stream's `data:` blocks.
    static func parseReply(_ contentType: String, _ body: [UInt8], id: MCPValue?) -> MCPValue? {
        func pick(_ m: MCPValue?) -> MCPValue? {
            guard let m, m["jsonrpc"] == "2.0", id == nil || m["id"] == id, m["result"] != nil || m["error"] != nil
            else { return nil }
            return m
        }
        if contentType.lowercased().contains("text/event-stream") {
            let text = String(decoding: body, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
            for block in text.components(separatedBy: "\n\n") {
                let data = block.split(separator: "\n", omittingEmptySubsequences: false)
                    .filter { $0.hasPrefix("data:") }
                    .map { String($0.dropFirst(5).drop { $0 == " " || $0 == "\t" }) }
                    .joined(separator: "\n")
                if !data.isEmpty, let m = pick(MCPValue.parse(Array(data.utf8))) { return m }
            }
            return nil
        }
        let parsed = MCPValue.parse(body)
        if let batch = parsed?.array { return batch.lazy.compactMap(pick).first }
        return pick(parsed)
    }

    /// A tool result as plain text: text parts joined by newlines, other parts named `[type]`, else the
    /// structured content as JSON; clipped to 8,000 characters.
    static func resultText(_ result: MCPValue) -> String {
        let parts = (result["content"]?.array ?? []).compactMap { part -> String? in
            if part["type"] == "text" { return part["text"]?.string ?? "" }
            return part["type"]?.string.map { "[\($0)]" }
        }.filter { !$0.isEmpty }
        let text = parts.joined(separator: "\n")
        if text.isEmpty, let structured = result["structuredContent"], !structured.isNull {
            return String(structured.jsonText.prefix(MCPToolOutput.textMax))
        }
        return String(text.prefix(MCPToolOutput.textMax))
    }
}

/// Why a peer call has no answer (`timeout`, `unreachable`, `http 502`, `not-configured`, the peer's error, …).
public struct MCPPeerFailure: Error, Sendable, Equatable {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
}

extension Duration {
    var seconds: Double {
        let c = components
        return Double(c.seconds) + Double(c.attoseconds) / 1e18
    }
}
