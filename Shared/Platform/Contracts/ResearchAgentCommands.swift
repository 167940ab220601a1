import Foundation

/// The gateway's commands to the Research service, which owns conversations.

/// Who a research conversation belongs to: a signed-in user, else an anonymous device (`X-Device-Id`). A signed-in
/// caller that also sends a device id takes over that device's guest conversations.
public struct ResearchOwner: Codable, Sendable, Equatable {
    public var userId: String?
    public var deviceId: String?

    public init(userId: String?, deviceId: String?) {
        self.userId = userId
        self.deviceId = deviceId
    }

    /// The stored owner: the user's id, else `device:<id>`; nil with neither.
    public var key: String? { userId ?? deviceId.map { "device:" + $0 } }

    /// The guest key a signed-in caller claims, when it sent a device id too.
    public var claimable: String? { userId == nil ? nil : deviceId.map { "device:" + $0 } }
}

/// `POST /v1/agent/chat` and `/stream`: one user message, starting a conversation or continuing `conversationId`.
public struct AgentChatCommand: Codable, Sendable, Equatable {
    public static let name = "agent.chat.v1"
    public var owner: ResearchOwner
    public var message: String
    public var ticker: String?
    public var conversationId: String?
    /// The client's id for this message: a retry with the same id gets the stored turn, never a second one.
    public var clientMessageId: String
    public var researchDepth: String

    public init(
        owner: ResearchOwner, message: String, ticker: String?, conversationId: String?, clientMessageId: String,
        researchDepth: String
    ) {
        self.owner = owner
        self.message = message
        self.ticker = ticker
        self.conversationId = conversationId
        self.clientMessageId = clientMessageId
        self.researchDepth = researchDepth
    }
}

/// `GET /v1/agent/threads` (no `conversationId`), `GET /v1/agent/threads/{id}`, `…/status` and `…/memo`.
public struct AgentThreadsCommand: Codable, Sendable, Equatable {
    public static let name = "agent.threads.v1"

    /// What of the conversation is read.
    public enum View: String, Codable, Sendable {
        case thread, status, memo
    }

    public var owner: ResearchOwner
    public var conversationId: String?
    public var view: View

    public init(owner: ResearchOwner, conversationId: String?, view: View) {
        self.owner = owner
        self.conversationId = conversationId
        self.view = view
    }
}

/// A file the Research service answers (a memo PDF, an export), carried as JSON between services; the gateway sends
/// its bytes with its content type and file name.
public struct ResearchDocument: Codable, Sendable, Equatable {
    public var contentType: String
    public var fileName: String
    /// The bytes, base64.
    public var base64: String

    public init(contentType: String, fileName: String, bytes: [UInt8]) {
        self.contentType = contentType
        self.fileName = fileName
        self.base64 = Data(bytes).base64EncodedString()
    }
}
