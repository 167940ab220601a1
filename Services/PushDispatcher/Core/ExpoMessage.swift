import Contracts

/// One Expo push message (docs/COMPATIBILITY.md#expo). `to`, `title`, `body` and `data` are never logged.
public struct ExpoMessage: Encodable, Sendable, Equatable {
    public var to: String
    public var title: String
    public var body: String
    public var data: [String: JSONValue]
    public var sound: String
    public var priority: String
    public var categoryId: String
    /// Seconds, already clamped to 300…604 800.
    public var ttl: Int

    public init(to: String, title: String, body: String, data: [String: JSONValue], categoryId: String, ttl: Int) {
        self.to = to
        self.title = title
        self.body = body
        self.data = data
        self.sound = "default"
        self.priority = "high"
        self.categoryId = categoryId
        self.ttl = ttl
    }
}

/// What Expo said about one message of a send, matched by index.
public enum ExpoTicket: Sendable, Equatable {
    /// Accepted; the ticket id (for receipts) when Expo gave one.
    case ok(id: String?)
    /// The token is dead: the installation is pruned at finalize.
    case deviceNotRegistered
    /// Any other failure (`InvalidCredentials`, `MessageTooBig`, a 4xx, retries exhausted, dispatch disabled).
    case failed(reason: ExpoFailure)

    package var isSuccess: Bool {
        if case .ok = self { return true }
        return false
    }
}

/// Bounded failure reasons, safe for metrics labels and logs.
public enum ExpoFailure: String, Sendable, Equatable {
    /// The production gate is closed: nothing was sent.
    case disabled = "expo_disabled"
    /// Expo answered a ticket error or a non-retriable 4xx.
    case rejected = "expo_rejected"
    /// 429/5xx/network errors on every attempt, or an unreadable answer.
    case unavailable = "expo_unavailable"
}

/// A push receipt (`/getReceipts`).
public enum ExpoReceipt: Sendable, Equatable {
    case ok
    case deviceNotRegistered
    case error
}
