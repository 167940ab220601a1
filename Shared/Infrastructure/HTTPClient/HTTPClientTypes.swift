/// An outgoing request. `timeout` bounds the whole exchange, `connectTimeout` the TCP (and TLS) connect.
public struct HTTPClientRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(String, String)]
    public var body: [UInt8]?
    public var timeout: Duration
    public var connectTimeout: Duration
    /// A response body larger than this fails the request (kind `.other`). Default 32 MiB.
    public var maxResponseBytes: Int
    /// Follow up to 5 redirects. Default false.
    public var followRedirects: Bool

    public init(
        method: String = "GET", url: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
        timeout: Duration = .seconds(10), connectTimeout: Duration = .seconds(3), maxResponseBytes: Int = 32 << 20,
        followRedirects: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.maxResponseBytes = maxResponseBytes
        self.followRedirects = followRedirects
    }
}

/// Response header fields in arrival order with ASCII case-insensitive lookup (the final response's only).
public struct HTTPClientHeaders: Sendable, Sequence {
    public var pairs: [(String, String)]

    public init(_ pairs: [(String, String)] = []) { self.pairs = pairs }

    /// The first value of `name` (case-insensitive), or nil.
    public subscript(name: String) -> String? {
        for (key, value) in pairs where asciiCaseInsensitiveEqual(key, name) { return value }
        return nil
    }

    public func values(_ name: String) -> [String] {
        pairs.compactMap { asciiCaseInsensitiveEqual($0.0, name) ? $0.1 : nil }
    }

    public var count: Int { pairs.count }

    public func makeIterator() -> IndexingIterator<[(String, String)]> { pairs.makeIterator() }
}

/// A response of any status: non-2xx statuses are not errors.
public struct HTTPClientResponse: Sendable {
    public var status: Int
    public var headers: HTTPClientHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPClientHeaders = HTTPClientHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body as UTF-8 text (invalid sequences replaced).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// A request that produced no response. `description` names the method and host only (never the query string
/// or header values, which may hold keys); `debugDescription` adds the path and libcurl's message.
public struct HTTPClientError: Error, CustomStringConvertible, CustomDebugStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// `timeout` (or `connectTimeout`) passed.
        case timeout
        /// DNS failure, connection refused or TLS handshake failure: the request was never sent.
        case connect
        /// The calling task was cancelled.
        case cancelled
        /// Anything else: a malformed URL, a dropped connection, an oversized response, a shut-down client.
        case other
    }

    public let kind: Kind
    /// The libcurl `CURLcode` (0 when the failure did not come from libcurl).
    public let code: Int
    public let method: String
    public let host: String
    let path: String
    let detail: String

    /// `url` is reduced to host and path at once; `detail` shows only in `debugDescription`.
    public init(kind: Kind, code: Int = 0, method: String = "GET", url: String = "", detail: String = "") {
        self.kind = kind
        self.code = code
        self.method = method
        let parts = URLParts(url)
        self.host = parts.host
        self.path = parts.path
        self.detail = detail
    }

    /// Whether retrying cannot duplicate a side effect: connect failures never reached the server.
    public var isRetriable: Bool { kind == .connect }

    public var description: String {
        "HTTP client: \(kind) (\(method) \(host.isEmpty ? "?" : host))"
    }

    public var debugDescription: String {
        "HTTP client: \(kind) (\(method) \(host)\(path)) curl \(code): \(detail)"
    }
}

/// Host and path of a URL, without user info or query (for error texts only).
struct URLParts {
    let host: String
    let path: String

    init(_ url: String) {
        var rest = Substring(url)
        if let scheme = rest.firstRange(of: "://") { rest = rest[scheme.upperBound...] }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        host = String(authority)
        let afterAuthority = rest[authorityEnd...]
        let pathEnd = afterAuthority.firstIndex { $0 == "?" || $0 == "#" } ?? afterAuthority.endIndex
        path = String(afterAuthority[..<pathEnd])
    }
}

func asciiCaseInsensitiveEqual(_ a: String, _ b: String) -> Bool {
    let x = a.utf8
    let y = b.utf8
    guard x.count == y.count else { return false }
    for (p, q) in zip(x, y) where (p >= 65 && p <= 90 ? p | 0x20 : p) != (q >= 65 && q <= 90 ? q | 0x20 : q) {
        return false
    }
    return true
}

extension Duration {
    /// Whole milliseconds, rounded up, at least 1.
    var curlMilliseconds: Int {
        let c = components
        let ms = c.seconds * 1000 + (c.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(clamping: max(1, ms))
    }
}
