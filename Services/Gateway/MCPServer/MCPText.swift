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

    public static func failure(_ id: MCPValue?, _ code: Int64, _ message: String) -> MCPValue {
        ["jsonrpc": "2.0", "id": id ?? .null, "error": ["code": .int(code), "message": .string(message)]]
    }
}
