/// One tool a server offers. `run` gets the call's `arguments` (always an object; anything else is `{}`) and where
/// the call sits on the chain; what it returns is normalised into an MCP tool result. A throwing tool answers
/// `isError` with `the tool failed`, never its error text.
public struct MCPTool: Sendable {
    public typealias Run =
        @Sendable (_ arguments: [String: MCPValue], _ context: MCPToolContext) async throws -> MCPToolOutput

    public let name: String
    public let description: String
    /// A JSON Schema object; default `{type: object, properties: {}, additionalProperties: false}`.
    public let inputSchema: MCPValue
    public let readOnly: Bool
    /// A tool that calls a peer: refused at the hop limit before it runs, and marked `openWorldHint`.
    public let relay: Bool
    public let run: Run

    public init(
        name: String, description: String, inputSchema: MCPValue? = nil, readOnly: Bool = true, relay: Bool = false,
        run: @escaping Run
    ) {
        self.name = name
        self.description = description
        if let inputSchema, inputSchema.object != nil {
            self.inputSchema = inputSchema
        } else {
            self.inputSchema = ["type": "object", "properties": [:], "additionalProperties": false]
        }
        self.readOnly = readOnly
        self.relay = relay
        self.run = run
    }

    /// The `tools/list` entry.
    var listing: MCPValue {
        [
            "name": .string(name), "description": .string(description), "inputSchema": inputSchema,
            "annotations": ["readOnlyHint": .bool(readOnly), "openWorldHint": .bool(relay)],
        ]
    }
}

/// What a tool returns, before normalisation (text is clipped to 8,000 characters).
public enum MCPToolOutput: Sendable {
    /// One text part.
    case text(String)
    /// One text part, marked `isError` (a tool that could not do its job).
    case error(String)
    /// A full MCP result (an object with `content[]`) as it is; a string or `{text, isError}` as text; any other
    /// value as its JSON text.
    case json(MCPValue)

    static let textMax = 8000

    /// The `tools/call` result object.
    var normalised: [String: MCPValue] {
        switch self {
        case .text(let text): return Self.textResult(text, isError: false)
        case .error(let text): return Self.textResult(text, isError: true)
        case .json(let value):
            if let object = value.object, object["content"]?.array != nil { return object }
            if let text = value.string { return Self.textResult(text, isError: false) }
            if let object = value.object, let text = object["text"]?.string {
                return Self.textResult(text, isError: object["isError"] == .bool(true))
            }
            return Self.textResult(value.jsonText, isError: false)
        }
    }

    static func textResult(_ text: String, isError: Bool) -> [String: MCPValue] {
        var result: [String: MCPValue] = ["content": [["type": "text", "text": .string(String(text.prefix(textMax)))]]]
        if isError { result["isError"] = true }
        return result
    }
}

/// What a running tool knows about its call, and its way out to the peers.
public struct MCPToolContext: Sendable {
    public let hop: MCPHop
    /// The caller's address under the server's address rule ("" when unknown).
    public let address: String
    let peers: MCPPeers

    /// Calls `tool` on `peer`, one hop deeper. Never throws.
    public func call(peer: String, tool: String, arguments: [String: MCPValue]) async -> MCPPeerCallResult {
        await peers.call(peer, tool: tool, arguments: arguments, hop: hop)
    }
}

/// A peer tool call's outcome: its text, or why there is none.
public enum MCPPeerCallResult: Sendable, Equatable {
    case answered(text: String, isError: Bool)
    case failed(reason: String)

    /// As a tool output: the text, `<who> reported an error: …`, or `<who> did not answer (<reason>)`.
    public func output(who: String = "the other site") -> MCPToolOutput {
        switch self {
        case .answered(let text, false): return .text(text.isEmpty ? "(no text)" : text)
        case .answered(let text, true): return .error("\(who) reported an error: \(text)")
        case .failed(let reason): return .error("\(who) did not answer (\(reason))")
        }
    }
}
