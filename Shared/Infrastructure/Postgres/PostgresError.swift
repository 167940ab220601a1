import Runtime

/// A failure talking to Postgres. `description` is generic (kind and SQLSTATE only: never SQL, values or
/// credentials), safe for logs and replies; `debugDescription` adds the server's message, detail and hint,
/// which can contain values.
public struct PostgresError: TransientFailure, CustomStringConvertible, CustomDebugStringConvertible {
    /// What kind of failure this is.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let description: String
        private init(_ name: String) { description = name }

        /// The connection could not be opened (server down, refused, authentication, bad URL target).
        public static let connectionFailed = Code("connection failed")
        /// The connection broke while in use; the statement may or may not have run.
        public static let connectionClosed = Code("connection closed")
        /// The server rejected the statement; see `sqlState`.
        public static let server = Code("server error")
        /// No connection became free within the pool's acquire timeout.
        public static let poolTimeout = Code("pool acquire timeout")
        /// The pool was closed.
        public static let poolClosed = Code("pool closed")
        /// A caller error found before sending: a NUL byte in a value, a bad schema name or migration list, a bad URL.
        public static let invalidArgument = Code("invalid argument")
        /// The server answered with something this client does not handle (for example COPY).
        static let unexpectedResult = Code("unexpected result")
        /// COMMIT ended in ROLLBACK because an earlier statement in the transaction failed and was swallowed.
        public static let transactionRolledBack = Code("transaction rolled back")
    }

    public var code: Code
    /// The five-character SQLSTATE for server errors (for example `23505` unique violation).
    public var sqlState: String?
    /// True for transient failures worth retrying with backoff: connection failures, pool timeouts, serialization
    /// failures (40001), deadlocks (40P01), shutdowns (57P01/57P02/57P03), too many connections (53300),
    /// lock not available (55P03). A retried write after `connectionClosed` may run twice: make it idempotent.
    public var isRetriable: Bool
    /// The violated constraint's name, when the server named one (schema text, no values).
    public var constraintName: String?
    /// The server's or libpq's message; may contain values, so only in `debugDescription`.
    public var message: String?
    public var detail: String?
    public var hint: String?

    public init(
        code: Code, sqlState: String? = nil, isRetriable: Bool? = nil, constraintName: String? = nil,
        message: String? = nil, detail: String? = nil, hint: String? = nil
    ) {
        self.code = code
        self.sqlState = sqlState
        self.isRetriable = isRetriable ?? Self.retriable(code: code, sqlState: sqlState)
        self.constraintName = constraintName
        self.message = message
        self.detail = detail
        self.hint = hint
    }

    /// What a 503 names when this failure outlives its retries.
    public var dependency: String { "database" }

    /// Unique violation (23505), e.g. for idempotent inserts.
    public var isUniqueViolation: Bool { sqlState == "23505" }

    public var description: String {
        var out = "PostgresError(\(code)"
        if let sqlState { out += ", sqlState: \(sqlState)" }
        return out + ")"
    }

    public var debugDescription: String {
        var out = "PostgresError(\(code)"
        if let sqlState { out += ", sqlState: \(sqlState)" }
        out += ", retriable: \(isRetriable)"
        if let constraintName { out += ", constraint: \(constraintName)" }
        if let message { out += ", message: \(message)" }
        if let detail { out += ", detail: \(detail)" }
        if let hint { out += ", hint: \(hint)" }
        return out + ")"
    }

    static func retriable(code: Code, sqlState: String?) -> Bool {
        switch code {
        case .connectionFailed, .connectionClosed, .poolTimeout: return true
        case .server:
            guard let sqlState else { return false }
            if sqlState.hasPrefix("08") { return true }  // connection exception class
            return ["40001", "40P01", "57P01", "57P02", "57P03", "53300", "55P03"].contains(sqlState)
        default: return false
        }
    }
}
