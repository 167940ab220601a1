import Runtime

/// A failure talking to Redis. `description` is generic (kind and the error reply's code word, such as `WRONGTYPE`),
/// never keys or values; `debugDescription` adds the full message.
public struct RedisError: TransientFailure, CustomStringConvertible, CustomDebugStringConvertible {
    /// What kind of failure this is.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let description: String
        private init(_ name: String) { description = name }

        /// The connection could not be opened (refused, unreachable, connect timeout).
        public static let connectionFailed = Code("connection failed")
        /// AUTH or SELECT was refused.
        public static let authenticationFailed = Code("authentication failed")
        /// The connection broke during a command; the command may or may not have run.
        public static let connectionClosed = Code("connection closed")
        /// No reply within the command timeout; the command may or may not have run.
        public static let timeout = Code("command timeout")
        /// Redis answered with an error reply; see `errorPrefix`.
        public static let errorReply = Code("error reply")
        /// A reply of a type the helper did not expect.
        static let unexpectedReply = Code("unexpected reply")
        /// No connection became free within the acquire timeout.
        public static let poolTimeout = Code("pool acquire timeout")
        public static let poolClosed = Code("pool closed")
        /// A caller error found before sending (empty command, non-positive TTL, bad URL).
        public static let invalidArgument = Code("invalid argument")
    }

    public var code: Code
    /// The first word of an error reply (`ERR`, `WRONGTYPE`, `NOSCRIPT`, `LOADING`…).
    public var errorPrefix: String?
    /// True for transient failures worth retrying with backoff: connection failures, timeouts, pool timeouts, and
    /// the `LOADING`, `BUSY`, `TRYAGAIN`, `MASTERDOWN`, `READONLY`, `CLUSTERDOWN` replies. A retried non-idempotent
    /// command (INCR) after `timeout` or `connectionClosed` may apply twice.
    public var isRetriable: Bool
    /// The full error text (may contain keys or script text): only in `debugDescription`.
    public var message: String?
    /// What a 503 names when this failure outlives its retries.
    public var dependency: String { "cache" }

    public init(code: Code, errorPrefix: String? = nil, message: String? = nil) {
        self.code = code
        self.errorPrefix = errorPrefix
        self.message = message
        switch code {
        case .connectionFailed, .connectionClosed, .timeout, .poolTimeout:
            self.isRetriable = true
        case .errorReply:
            self.isRetriable = ["LOADING", "BUSY", "TRYAGAIN", "MASTERDOWN", "READONLY", "CLUSTERDOWN"]
                .contains(errorPrefix ?? "")
        default:
            self.isRetriable = false
        }
    }

    /// An error reply's text, split into its code word and message.
    init(reply text: String) {
        let prefix = text.split(separator: " ", maxSplits: 1).first.map(String.init)
        let isCodeWord =
            prefix.map { !$0.isEmpty && $0.allSatisfy { $0.isUppercase || $0.isNumber || $0 == "_" } } ?? false
        self.init(code: .errorReply, errorPrefix: isCodeWord ? prefix : nil, message: text)
    }

    /// AUTH or SELECT refused while connecting.
    init(setupReply text: String) {
        self.init(code: .authenticationFailed, errorPrefix: RedisError(reply: text).errorPrefix, message: text)
    }

    public var description: String {
        var out = "RedisError(\(code)"
        if let errorPrefix { out += ", \(errorPrefix)" }
        return out + ")"
    }

    public var debugDescription: String {
        var out = "RedisError(\(code)"
        if let errorPrefix { out += ", \(errorPrefix)" }
        out += ", retriable: \(isRetriable)"
        if let message { out += ", message: \(message)" }
        return out + ")"
    }
}
