/// Research chat wire types (the original's `AgentChatResponse`, `AgentThreadSummary`, `AgentConversationStatus`) and
/// the gateway's commands to the Research service, which owns conversations.

/// A conversation's status, as the schema names them.
public enum ResearchStatus: String, Codable, Sendable, CaseIterable {
    case queued, running, conclusive, exhausted, blocked, error
}

/// One turn of a conversation.
public struct ResearchArticle: Codable, Sendable, Equatable {
    public var id: String
    /// `user` or `assistant`.
    public var role: String
    public var content: String
    public var createdAt: String
    /// Who wrote an assistant turn: `derivation`, `openrouter`, or `unavailable` (the plain sentence).
    public var provider: String?

    public init(id: String, role: String, content: String, createdAt: String, provider: String? = nil) {
        self.id = id
        self.role = role
        self.content = content
        self.createdAt = createdAt
        self.provider = provider
    }
}

/// `POST /v1/agent/chat`'s answer.
public struct AgentChatResponse: Codable, Sendable, Equatable {
    public var conversationId: String
    public var threadId: String
    public var clientMessageId: String
    public var status: ResearchStatus
    public var ticker: String?
    public var article: ResearchArticle

    public init(
        conversationId: String, clientMessageId: String, status: ResearchStatus, ticker: String?,
        article: ResearchArticle
    ) {
        self.conversationId = conversationId
        self.threadId = conversationId
        self.clientMessageId = clientMessageId
        self.status = status
        self.ticker = ticker
        self.article = article
    }
}

public struct AgentThreadSummary: Codable, Sendable, Equatable {
    public var id: String
    public var conversationId: String
    public var title: String
    public var createdAt: String
    public var updatedAt: String
    public var preview: String
    public var status: ResearchStatus
    /// Present on `GET /v1/agent/threads/{id}` only.
    public var messages: [ResearchArticle]?

    public init(
        id: String, title: String, createdAt: String, updatedAt: String, preview: String, status: ResearchStatus,
        messages: [ResearchArticle]? = nil
    ) {
        self.id = id
        self.conversationId = id
        self.title = title
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.preview = preview
        self.status = status
        self.messages = messages
    }
}

public struct AgentThreadsResponse: Codable, Sendable, Equatable {
    public var threads: [AgentThreadSummary]
    public init(threads: [AgentThreadSummary]) { self.threads = threads }
}

public struct AgentThreadResponse: Codable, Sendable, Equatable {
    public var thread: AgentThreadSummary
    public init(thread: AgentThreadSummary) { self.thread = thread }
}

public struct AgentConversationStatus: Codable, Sendable, Equatable {
    public var conversationId: String
    public var status: ResearchStatus
    public var updatedAt: String
    public init(conversationId: String, status: ResearchStatus, updatedAt: String) {
        self.conversationId = conversationId
        self.status = status
        self.updatedAt = updatedAt
    }
}

/// `POST /v1/agent/chat`: one user message, starting a conversation or continuing `conversationId`.
public struct AgentChatCommand: Codable, Sendable, Equatable {
    public static let name = "agent.chat.v1"
    public var userId: String
    public var message: String
    public var ticker: String?
    public var conversationId: String?
    /// The client's id for this message: a retry with the same id gets the stored turn, never a second one.
    public var clientMessageId: String
    public var researchDepth: String

    public init(
        userId: String, message: String, ticker: String?, conversationId: String?, clientMessageId: String,
        researchDepth: String
    ) {
        self.userId = userId
        self.message = message
        self.ticker = ticker
        self.conversationId = conversationId
        self.clientMessageId = clientMessageId
        self.researchDepth = researchDepth
    }
}

/// `GET /v1/agent/threads` (no `conversationId`), `GET /v1/agent/threads/{id}` and `…/status` (`statusOnly`).
public struct AgentThreadsCommand: Codable, Sendable, Equatable {
    public static let name = "agent.threads.v1"
    public var userId: String
    public var conversationId: String?
    public var statusOnly: Bool

    public init(userId: String, conversationId: String?, statusOnly: Bool) {
        self.userId = userId
        self.conversationId = conversationId
        self.statusOnly = statusOnly
    }
}
