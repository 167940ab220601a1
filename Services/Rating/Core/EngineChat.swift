import Contracts

/// The engine's chat turn as the client reads it: every key the engine sent except `conversation_id` and
/// `generated_at`, which come back as `conversationId` and `generatedAt` when non-blank; `ticker` (the engine's, else the one asked
/// about), `reply` (the first non-blank of `reply`, `message`, `text`, `answer`, else empty) and `citations` (an
/// array, else empty) always present; `model` only when non-blank.
public enum EngineChat {
    public static func reply(_ body: [String: JSONValue], ticker: String) -> [String: JSONValue] {
        func text(_ key: String) -> String? {
            guard case .string(let s)? = body[key] else { return nil }
            let t = s.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()
            return t.isEmpty ? nil : String(t)
        }
        var out = body
        out["conversation_id"] = nil
        out["generated_at"] = nil
        out["ticker"] = .string(text("ticker") ?? ticker)
        out["reply"] = .string(["reply", "message", "text", "answer"].lazy.compactMap(text).first ?? "")
        if case .array? = body["citations"] {} else { out["citations"] = .array([]) }
        // Blank values of these stay as the engine sent them (absent, null or empty).
        if let id = text("conversationId") ?? text("conversation_id") { out["conversationId"] = .string(id) }
        if let model = text("model") { out["model"] = .string(model) }
        if let at = text("generatedAt") ?? text("generated_at") { out["generatedAt"] = .string(at) }
        return out
    }

    /// The engine's body: `{ticker, message, conversation_id?, history? (only when non-empty)}`.
    public static func upstreamBody(_ command: PacketChatCommand) -> [String: JSONValue] {
        var body: [String: JSONValue] = ["ticker": .string(command.ticker), "message": .string(command.message)]
        if let id = command.conversationId { body["conversation_id"] = .string(id) }
        if !command.history.isEmpty {
            body["history"] = .array(
                command.history.map { .object(["role": .string($0.role), "content": .string($0.content)]) })
        }
        return body
    }

    /// `POST /api/prism/chat`, or `POST /api/situate/<T>/chat` (`segment` is the ticker as a path segment).
    public static func path(_ engine: ResearchEngine, segment: String) -> String {
        engine == .prism ? "/api/prism/chat" : "/api/situate/\(segment)/chat"
    }
}
