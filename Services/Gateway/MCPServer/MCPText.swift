import Foundation

/// Text shaping shared by the server's parts.
enum MCPText {
    /// Whitespace runs folded to one space, trimmed, at most `max` characters.
    static func oneLine(_ text: String, _ max: Int) -> String {
        String(text.split(whereSeparator: \.isWhitespace).joined(separator: " ").prefix(max))
    }
}

/// JSON-RPC 2.0 envelopes.
public enum MCPRPC {
    public static func success(_ id: MCPValue, _ result: MCPValue) -> MCPValue {
        ["jsonrpc": "2.0", "id": id, "result": result]
    }

    /// Echoes `id` only when it is one JSON-RPC allows (a string or a number); otherwise (absent, an object, an
    /// array, a boolean) the error carries a null id.
    public static func failure(_ id: MCPValue?, _ code: Int64, _ message: String) -> MCPValue {
        let echoed = id.flatMap { isValidId($0) ? $0 : nil } ?? .null
        return ["jsonrpc": "2.0", "id": echoed, "error": ["code": .int(code), "message": .string(message)]]
    }

    /// A request id JSON-RPC 2.0 allows: a string, a number or null.
    public static func isValidId(_ id: MCPValue) -> Bool {
        switch id {
        case .null, .string, .int, .double: true
        case .bool, .array, .object: false
        }
    }
}
