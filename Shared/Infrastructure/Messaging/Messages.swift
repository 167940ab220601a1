import Contracts
import Kafka
import Runtime

/// A service's answer to a command, as the gateway turns it into an HTTP response.
public struct Reply: Sendable {
    public var status: Int
    public var body: [UInt8]
    /// HTTP headers for the gateway to copy onto the response (they travel as `mv-h-<name>` Kafka headers).
    public var headers: [(String, String)]
    /// Work to run once the reply has been produced (e.g. recording a find, then deleting the claim-checked photo, so
    /// a redelivery inside the budget still finds it). `CommandRunner` retries it until it succeeds before the
    /// offset is committed: it must be idempotent, and throw when it did not finish.
    public var afterReply: (@Sendable () async throws -> Void)?

    public init(status: Int, body: [UInt8], headers: [(String, String)] = []) {
        self.status = status
        self.body = body
        self.headers = headers
    }

    /// This reply with `work` to run after it was produced.
    public func then(_ work: @escaping @Sendable () async throws -> Void) -> Reply {
        var copy = self
        copy.afterReply = work
        return copy
    }

    /// `value` encoded as JSON (`WireJSON`); an encoding failure becomes a 500 `{"error":"internal error"}`.
    public static func json<T: Encodable>(_ status: Int, _ value: T, headers: [(String, String)] = []) -> Reply {
        guard let body = try? WireJSON.encode(value) else { return .error(.internalError) }
        return Reply(status: status, body: body, headers: headers)
    }

    /// The flat error shape `{"error":"<message>"}`.
    public static func error(_ status: Int, _ message: String) -> Reply {
        Reply(status: status, body: JSONText.errorBody(message))
    }

    /// A failure from the shared vocabulary.
    public static func error(_ failure: APIError) -> Reply {
        .error(failure.status, failure.message)
    }
}

/// A command the gateway sends to a service.
public struct OutgoingCommand: Sendable {
    public var service: ServiceName
    /// The command type, e.g. `identify.photo.v1` (the `mv-command` header).
    public var name: String
    /// The partitioning key (user id, device token, ticker); nil spreads commands over partitions.
    public var key: String?
    public var body: [UInt8]
    /// The HTTP request id, for logs across services.
    public var requestId: String
    /// A read without side effects: running it twice is harmless, so a slow first copy may be hedged by a second.
    public var isIdempotentRead: Bool

    public init(
        service: ServiceName, name: String, key: String?, body: [UInt8], requestId: String,
        isIdempotentRead: Bool = false
    ) {
        self.service = service
        self.name = name
        self.key = key
        self.body = body
        self.requestId = requestId
        self.isIdempotentRead = isIdempotentRead
    }
}

/// Why a request got no reply: `unavailable` maps to 503, `timedOut` to 504.
public enum RequestError: Error, Sendable, CustomStringConvertible {
    /// Not sent or not answerable: the producer cannot enqueue, too many requests are waiting, the client is
    /// shutting down, the delivery failed, or the waiting task was cancelled.
    case unavailable(String)
    /// No reply within the budget.
    case timedOut

    public var description: String {
        switch self {
        case .unavailable(let reason): "unavailable: \(reason)"
        case .timedOut: "timed out"
        }
    }
}

/// A decoded command as a service sees it.
public struct IncomingCommand: Sendable {
    public var name: String
    public var body: [UInt8]
    public var key: String?
    public var correlationId: String?
    public var requestId: String?
    /// When the sender stops waiting (skew-safe: computed from the remaining budget and the sender's send time).
    public var deadline: ContinuousClock.Instant
    /// The raw record, for anything not decoded above.
    public var message: KafkaMessage

    public init(
        name: String, body: [UInt8], key: String?, correlationId: String?, requestId: String?,
        deadline: ContinuousClock.Instant, message: KafkaMessage
    ) {
        self.name = name
        self.body = body
        self.key = key
        self.correlationId = correlationId
        self.requestId = requestId
        self.deadline = deadline
        self.message = message
    }

    /// Time left until the deadline (zero when passed).
    public var remaining: Duration {
        let now = ContinuousClock.now
        return deadline > now ? deadline - now : .zero
    }
}

/// Thrown by a command handler for a command it cannot decode: the command goes to the dead-letter topic (and a
/// waiting gateway gets a 500).
public struct CommandDecodingError: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { "undecodable command: \(reason)" }
}
