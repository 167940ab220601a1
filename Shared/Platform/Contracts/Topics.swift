/// The services that consume commands from Kafka. Each has one versioned command topic and one consumer group.
public enum ServiceName: String, Sendable, CaseIterable, Codable {
    case identify, nearby, rating, briefs, push, research

    /// `mapvest.<service>.commands.v1`: request/reply commands from the gateway (and schedulers).
    /// The PushDispatcher also consumes notification requests from `Topics.pushRequests`.
    public var commandTopic: String { "mapvest.\(rawValue).commands.v1" }

    /// The consumer group every replica of the service joins.
    public var consumerGroup: String { "mapvest.\(rawValue)" }
}

/// Versioned topic names. Topics are created at start through the admin API; consumers never auto-create.
public enum Topics {
    /// Notification requests that any service may publish; the PushDispatcher consumes them.
    public static let pushRequests = "mapvest.push.requests.v1"
    /// Domain events as CloudEvents JSON, for analytics consumers.
    public static let events = "mapvest.events.v1"
    /// Commands that could not be decoded, with the error in headers.
    public static let deadLetter = "mapvest.dlq.v1"
    /// Identify's own `identify.effects.v1` commands (effects it could not apply right after a reply), in group
    /// `mapvest.identify.effects`: apart from the command topic, so effects held during an outage never take the
    /// in-flight slots identifies need.
    public static let identifyEffects = "mapvest.identify.effects.v1"

    /// The reply topic owned by one gateway instance (one partition, read by that instance only).
    public static func replies(gatewayInstance: String) -> String { "mapvest.gateway.replies.\(gatewayInstance).v1" }
}

/// Kafka header names that carry request metadata. Values are UTF-8 text.
public enum MessageHeaders {
    /// Matches a reply to its request.
    public static let correlationId = "mv-correlation-id"
    /// The HTTP request id, for logs across services.
    public static let requestId = "mv-request-id"
    /// The topic the reply goes to.
    public static let replyTo = "mv-reply-to"
    /// The command's remaining time budget in milliseconds when it was sent.
    public static let budgetMs = "mv-budget-ms"
    /// The sender's clock (Unix ms) when it sent the command; with `budgetMs` gives a skew-safe deadline.
    public static let sentAtMs = "mv-sent-at-ms"
    /// The command type (e.g. `identify.photo.v1`); one topic carries several commands of a service.
    public static let command = "mv-command"
    /// A reply's HTTP status code.
    public static let status = "mv-status"
    /// A reply's queueing delay in ms: from the command's `sentAtMs` to its handler's start (admission control).
    public static let queuedMs = "mv-queued-ms"
    /// A reply's source: the command topic partition its command was consumed from (the gateway's `PartitionStalls`).
    public static let partition = "mv-partition"
    /// Prefix of reply headers that the gateway copies onto the HTTP response (`mv-h-cache-control`).
    public static let httpHeaderPrefix = "mv-h-"
    /// Dead-letter headers: why the message was rejected and where it came from.
    public static let dlqError = "mv-dlq-error"
    public static let dlqTopic = "mv-dlq-topic"
    public static let dlqPartition = "mv-dlq-partition"
    public static let dlqOffset = "mv-dlq-offset"
}
