import Foundation
import Runtime

/// Header fields in arrival order, with ASCII case-insensitive lookup by name.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    public var pairs: [(String, String)]

    public init(_ pairs: [(String, String)] = []) { self.pairs = pairs }

    public init(dictionaryLiteral elements: (String, String)...) { self.pairs = elements }

    /// The first value of the field `name` (case-insensitive), or nil.
    public subscript(name: String) -> String? {
        for (key, value) in pairs where HeaderName.equal(key, name) { return value }
        return nil
    }

    /// Every value of the field `name`, in order.
    public func values(_ name: String) -> [String] {
        pairs.compactMap { HeaderName.equal($0.0, name) ? $0.1 : nil }
    }

    public func contains(_ name: String) -> Bool { self[name] != nil }

    public var count: Int { pairs.count }

    public mutating func add(_ name: String, _ value: String) { pairs.append((name, value)) }

    /// Replaces every field named `name` with one field.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        pairs.append((name, value))
    }

    public mutating func remove(_ name: String) { pairs.removeAll { HeaderName.equal($0.0, name) } }

    public func makeIterator() -> IndexingIterator<[(String, String)]> { pairs.makeIterator() }
}

/// ASCII case-insensitive comparison of header names (no Foundation, no allocation).
enum HeaderName {
    static func equal(_ a: String, _ b: String) -> Bool {
        let x = a.utf8
        let y = b.utf8
        guard x.count == y.count else { return false }
        // Native strings are contiguous UTF-8: compare the buffers (zipping the views costs ~20 instructions a byte).
        if let same = x.withContiguousStorageIfAvailable({ p in
            y.withContiguousStorageIfAvailable { q in
                for i in 0..<p.count where lower(p[i]) != lower(q[i]) { return false }
                return true
            }
        }), let same {
            return same
        }
        for (p, q) in zip(x, y) where lower(p) != lower(q) { return false }
        return true
    }

    @inline(__always) static func lower(_ c: UInt8) -> UInt8 { (c >= 65 && c <= 90) ? c | 0x20 : c }
}

/// What is known about a request once its headers have arrived, before any body byte is read.
public struct HTTPRequestHead: Sendable {
    public var method: String
    /// The raw request path, without the query and not percent-decoded.
    public var path: String
    /// The raw query string after `?`, or nil when the target has no `?`.
    public var rawQuery: String?
    /// First value per key, percent-decoded (`+` is a space).
    public var query: [String: String]
    public var headers: HTTPHeaders
    /// The socket peer's IP address (never `X-Forwarded-For`).
    public var remoteAddress: String
    /// The declared `Content-Length`, if any (nil for chunked uploads).
    var contentLength: Int?
    /// `HTTP/1.1` or `HTTP/1.0`.
    public var version: String

    public init(
        method: String, path: String, rawQuery: String? = nil, query: [String: String]? = nil,
        headers: HTTPHeaders = HTTPHeaders(), remoteAddress: String = "127.0.0.1", contentLength: Int? = nil,
        version: String = "HTTP/1.1"
    ) {
        self.method = method
        self.path = path
        self.rawQuery = rawQuery
        self.query = query ?? rawQuery.map { QueryString.parse(Substring($0)) } ?? [:]
        self.headers = headers
        self.remoteAddress = remoteAddress
        self.contentLength = contentLength
        self.version = version
    }
}

/// A complete request: head and body. What `HTTPHandler.head(_:)` learned comes to `handle(_:state:)` beside it.
public struct HTTPRequest: Sendable {
    public var head: HTTPRequestHead
    public var body: [UInt8]

    public init(head: HTTPRequestHead, body: [UInt8] = []) {
        self.head = head
        self.body = body
    }

    public var method: String { head.method }
    public var path: String { head.path }
    public var query: [String: String] { head.query }
    public var headers: HTTPHeaders { head.headers }
}

/// A response to send. `Content-Length` is computed by the server; a `Content-Length` or
/// `Transfer-Encoding` header given here is ignored.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// When set, the body is sent chunked from this stream as it is written (`body` is ignored).
    public var stream: HTTPBodyStream?

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response whose body is written to `stream` while it is sent.
    public static func streaming(_ status: Int, headers: [(String, String)], stream: HTTPBodyStream) -> HTTPResponse {
        var response = HTTPResponse(status: status, headers: headers)
        response.stream = stream
        return response
    }

    /// `value` encoded as JSON; an encoding failure becomes a 500 `{"error":"internal error"}`.
    public static func json<T: Encodable>(_ status: Int, _ value: T, headers: [(String, String)] = []) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return .error(500, "internal error") }
        return json(status, raw: Array(data), headers: headers)
    }

    /// Already-encoded JSON bytes.
    public static func json(_ status: Int, raw: [UInt8], headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: raw)
    }

    /// The flat error shape `{"error": message}`.
    public static func error(_ status: Int, _ message: String, headers: [(String, String)] = []) -> HTTPResponse {
        json(status, raw: JSONText.errorBody(message), headers: headers)
    }

    /// No body.
    public static func empty(_ status: Int, headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers)
    }

    /// A text body (`text/plain; charset=utf-8` unless another type is given).
    public static func text(
        _ status: Int, _ text: String, contentType: String = "text/plain; charset=utf-8",
        headers: [(String, String)] = []
    ) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", contentType)] + headers, body: Array(text.utf8))
    }
}

/// A response can be thrown, or be the failure of a `Result`, to short-circuit a handler with an answer
/// (`Result<Body, HTTPResponse>` for decoding, guards that answer 401/429).
extension HTTPResponse: Error {}

/// The body limit of the default `head(_:)`: 1 MiB.
public let defaultHTTPBodyLimit = 1 << 20

/// What to do with a request once its headers are known; `State` is what `head(_:)` hands to `handle(_:state:)`.
public enum HeadDecision<State: Sendable>: Sendable {
    /// Answer now; the body is never read (a pending body closes the connection after the answer).
    case respond(HTTPResponse)
    /// Read a body of at most `limit` bytes, then call `handle` with `state`; a larger body is answered with
    /// `tooLarge` (at once when `Content-Length` declares it, as soon as the count passes `limit` for chunked uploads).
    case readBody(limit: Int, tooLarge: HTTPResponse, state: State)
}

extension HeadDecision where State == Void {
    /// `.readBody` with a 413 `{"error":"request body too large"}` and no state.
    public static func accept(limit: Int = defaultHTTPBodyLimit) -> HeadDecision {
        .readBody(limit: limit, tooLarge: .error(413, "request body too large"), state: ())
    }
}

/// Application logic behind an `HTTPServer`. Both calls run as tasks; a suspended connection holds no thread.
public protocol HTTPHandler: Sendable {
    /// What `head(_:)` learned about a request it admits, handed to `handle(_:state:)` with the body.
    associatedtype RequestState: Sendable = Void

    /// An answer computed synchronously on the server's polling thread for a request without a body, skipping the
    /// suspend/resume round trip (health checks and other cheap, non-blocking routes). Nil sends the request through
    /// `head(_:)` as usual. It must never block.
    func immediate(_ head: HTTPRequestHead) -> HTTPResponse?
    /// Called once headers have arrived, before any body byte is read (runs async; the connection is suspended meanwhile).
    func head(_ head: HTTPRequestHead) async -> HeadDecision<RequestState>
    /// Called with the complete request and the state of the `.readBody` decision that admitted it.
    func handle(_ request: HTTPRequest, state: RequestState) async -> HTTPResponse
}

extension HTTPHandler {
    /// No synchronous answers.
    public func immediate(_ head: HTTPRequestHead) -> HTTPResponse? { nil }
}

extension HTTPHandler where RequestState == Void {
    /// Accepts every request with a body of up to `defaultHTTPBodyLimit` bytes.
    public func head(_ head: HTTPRequestHead) async -> HeadDecision<Void> { .accept() }
}

/// An `HTTPHandler` made of a closure, accepting bodies up to `bodyLimit` bytes.
public struct ClosureHTTPHandler: HTTPHandler {
    public let bodyLimit: Int
    private let body: @Sendable (HTTPRequest) async -> HTTPResponse

    public init(
        bodyLimit: Int = defaultHTTPBodyLimit,
        _ handle: @escaping @Sendable (HTTPRequest) async -> HTTPResponse
    ) {
        self.bodyLimit = bodyLimit
        self.body = handle
    }

    public func head(_ head: HTTPRequestHead) async -> HeadDecision<Void> { .accept(limit: bodyLimit) }
    public func handle(_ request: HTTPRequest, state: Void) async -> HTTPResponse { await body(request) }
}
