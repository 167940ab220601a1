/// One chat turn about a stored Prism or Situate packet (`POST /v1/prism/chat`, `/v1/situate/chat` and their
/// aliases): validated by the gateway, answered by the Rating service through the engine's own chat.
public struct PacketChatCommand: Codable, Sendable, Equatable {
    public static let name = "research-chat.turn.v1"

    /// One earlier turn the client replays for context.
    public struct Turn: Codable, Sendable, Equatable {
        /// `user` or `assistant`.
        public var role: String
        public var content: String

        public init(role: String, content: String) {
            self.role = role
            self.content = content
        }
    }

    public var engine: ResearchEngine
    /// Upper-cased, `^[A-Z][A-Z0-9.:-]{0,15}$`.
    public var ticker: String
    public var message: String
    public var conversationId: String?
    public var history: [Turn]

    public init(engine: ResearchEngine, ticker: String, message: String, conversationId: String?, history: [Turn]) {
        self.engine = engine
        self.ticker = ticker
        self.message = message
        self.conversationId = conversationId
        self.history = history
    }
}
