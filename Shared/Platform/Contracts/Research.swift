/// Research chat wire types (the original's `AgentChatResponse`, `ResearchArticle`, `AgentThreadSummary`,
/// `AgentConversationStatus`). The gateway's commands to the Research service are in `ResearchAgentCommands.swift`.

/// A conversation's status, as the schema names them.
public enum ResearchStatus: String, Codable, Sendable, CaseIterable {
    case queued, running, conclusive, exhausted, blocked, error

    /// Whether a run in this status is finished.
    public var isTerminal: Bool { self != .queued && self != .running }
}

/// The constant research-only notice every agent answer carries.
public struct ResearchSafety: Codable, Sendable, Equatable {
    public var liveTradingForbidden: Bool
    public var orderSubmissionAllowed: Bool
    public static let researchOnly = ResearchSafety(liveTradingForbidden: true, orderSubmissionAllowed: false)
}

/// An idea a research turn surfaced.
public struct ResearchIdea: Codable, Sendable, Equatable {
    public var title: String
    public var thesis: String
    public var disposition: String?
    public var findings: [String]

    public init(title: String, thesis: String, disposition: String? = nil, findings: [String] = []) {
        self.title = title
        self.thesis = thesis
        self.disposition = disposition
        self.findings = findings
    }
}

/// A source a research turn relied on (`url` only when http(s)).
public struct ResearchSource: Codable, Sendable, Equatable {
    public var label: String
    public var url: String?

    public init(label: String, url: String? = nil) {
        self.label = label
        self.url = url
    }
}

/// How far a research run got.
public struct ResearchProgress: Codable, Sendable, Equatable {
    public var completedIterations: Int?
    public var maxIterations: Int?

    public init(completedIterations: Int? = nil, maxIterations: Int? = nil) {
        self.completedIterations = completedIterations
        self.maxIterations = maxIterations
    }
}

/// One turn of a conversation (also the chat's `userMessage`).
public struct ResearchArticle: Codable, Sendable, Equatable {
    public var id: String
    /// `user` or `assistant`.
    public var role: String
    public var content: String
    public var createdAt: String
    public var interesting: [String] = []
    public var ideas: [ResearchIdea] = []
    public var toolsUsed: [String] = []
    public var sources: [ResearchSource] = []
    /// At most four symbols: the request's ticker first, then those named in the content.
    public var chartTickers: [String] = []
    public var status: ResearchStatus?
    public var phase: String?
    public var progress: ResearchProgress?
    /// Why a blocked run stopped (prose, never a machine code).
    public var error: String?
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

/// The durable reference to a conversation (`research_conversation_ref_v1`); `pdf_url` is null until a memo exists.
public struct ResearchConversationRef: Codable, Sendable, Equatable {
    public var schemaVersion: String
    public var id: String
    public var conversationId: String
    public var status: ResearchStatus
    /// `ideas` or `memo`.
    public var deliverable: String
    public var href: String
    public var streamHref: String
    public var pdfURL: String?

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version", id, conversationId = "conversation_id", status, deliverable, href
        case streamHref = "stream_href", pdfURL = "pdf_url"
    }

    public init(id: String, status: ResearchStatus, pdfURL: String?) {
        self.schemaVersion = "research_conversation_ref_v1"
        self.id = id
        self.conversationId = id
        self.status = status
        self.deliverable = "memo"
        self.href = "/v1/agent/threads/\(id)"
        self.streamHref = "/v1/agent/threads/\(id)/status"
        self.pdfURL = pdfURL
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(schemaVersion, forKey: .schemaVersion)
        try c.encode(id, forKey: .id)
        try c.encode(conversationId, forKey: .conversationId)
        try c.encode(status, forKey: .status)
        try c.encode(deliverable, forKey: .deliverable)
        try c.encode(href, forKey: .href)
        try c.encode(streamHref, forKey: .streamHref)
        try c.encode(pdfURL, forKey: .pdfURL)  // nullable: always present
    }
}

/// `POST /v1/agent/chat`'s answer: 200 when the turn is answered, 202 (`pending`) while its run is still going.
public struct AgentChatResponse: Codable, Sendable, Equatable {
    public var conversationId: String
    public var threadId: String
    public var clientMessageId: String
    public var status: ResearchStatus
    public var conversation: ResearchConversationRef
    public var ticker: String?
    public var article: ResearchArticle
    public var userMessage: ResearchArticle
    public var safety: ResearchSafety
    public var provider: String
    /// Relative path of the memo PDF, once the conversation has one.
    public var memoUrl: String?
    public var pending: Bool?

    /// The only provider name the client knows.
    public static let providerName = "derivation-research-console"

    public init(
        conversation: ResearchConversationRef, clientMessageId: String, ticker: String?, article: ResearchArticle,
        userMessage: ResearchArticle, pending: Bool
    ) {
        self.conversationId = conversation.id
        self.threadId = conversation.id
        self.clientMessageId = clientMessageId
        self.status = conversation.status
        self.conversation = conversation
        self.ticker = ticker
        self.article = article
        self.userMessage = userMessage
        self.safety = .researchOnly
        self.provider = Self.providerName
        self.memoUrl = pending ? nil : conversation.pdfURL
        self.pending = pending ? true : nil
    }
}

/// A thread: list rows carry the summary; `GET /v1/agent/threads/{id}` adds `phase`, `memoUrl`, `conversation` and
/// `messages`.
public struct AgentThreadSummary: Codable, Sendable, Equatable {
    public var id: String
    public var conversationId: String
    public var title: String
    public var createdAt: String
    public var updatedAt: String
    public var preview: String
    public var status: ResearchStatus
    public var safety: ResearchSafety
    public var phase: String?
    public var memoUrl: String?
    public var conversation: ResearchConversationRef?
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
        self.safety = .researchOnly
        self.messages = messages
    }
}

public struct AgentThreadsResponse: Codable, Sendable, Equatable {
    public var threads: [AgentThreadSummary]
    public var count: Int
    public init(threads: [AgentThreadSummary]) {
        self.threads = threads
        self.count = threads.count
    }
}

public struct AgentThreadResponse: Codable, Sendable, Equatable {
    public var thread: AgentThreadSummary
    public init(thread: AgentThreadSummary) { self.thread = thread }
}

/// `GET /v1/agent/threads/{id}/status`: whether the run is still active, its phase and progress.
public struct AgentConversationStatus: Codable, Sendable, Equatable {
    public var conversationId: String
    public var status: ResearchStatus
    public var phase: String?
    public var active: Bool?
    public var completedIterations: Int?
    public var maxIterations: Int?
    public var preview: String?
    public var updatedAt: String?

    public init(
        conversationId: String, status: ResearchStatus, phase: String?, progress: ResearchProgress?, preview: String?,
        updatedAt: String?
    ) {
        self.conversationId = conversationId
        self.status = status
        self.phase = phase
        self.active = !status.isTerminal
        self.completedIterations = progress?.completedIterations
        self.maxIterations = progress?.maxIterations
        self.preview = preview
        self.updatedAt = updatedAt
    }
}
