import HTTPServer
import Runtime
import Synchronization

/// A loopback HTTP server on an ephemeral port whose answers come from a closure, recording every request
/// it receives (or, for benchmarks, only counting them). Point a client at `baseURL` to fake OpenRouter, Exa, Expo
/// and the like.
///
/// ```swift
/// let upstream = try FakeUpstream { request in .json(200, ["ok": true]) }
/// defer { Task { await upstream.shutdown() } }   // or `await upstream.shutdown()` at the end
/// // … call code configured with upstream.baseURL …
/// #expect(upstream.requests.first?.headers["Authorization"] == "Bearer test")
/// ```
public final class FakeUpstream: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

    /// One request as received.
    public struct RecordedRequest: Sendable {
        public var method: String
        /// Raw path, without the query.
        public var path: String
        public var rawQuery: String?
        /// First value per key, percent-decoded.
        public var query: [String: String]
        public var headers: HTTPHeaders
        public var body: [UInt8]
        public var remoteAddress: String

        /// The body as UTF-8 text.
        public var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    /// The answering closure in a class: a closure stored straight in a `Mutex` is reabstracted on every
    /// `withLock { $0 }`, and the write-back wrapped it in two more thunks per request, a chain every later request
    /// walked (the fake's CPU grew with the requests it had answered, ~5 kB of memory each).
    private final class HandlerBox: Sendable {
        let handle: Handler
        init(_ handle: @escaping Handler) { self.handle = handle }
    }

    /// Shared with the server's handler closure.
    private final class State: Sendable {
        let handler: Mutex<HandlerBox>
        let recorded = Mutex<(requests: [RecordedRequest], count: Int)>(([], 0))
        /// False: `count` grows, `requests` stays empty (a benchmark's hundreds of thousands of bodies).
        let keepsRequests: Bool
        init(_ handler: @escaping Handler, keepsRequests: Bool) {
            self.handler = Mutex(HandlerBox(handler))
            self.keepsRequests = keepsRequests
        }
    }

    private let server: HTTPServer
    private let state: State
    /// The bound port.
    public let port: Int

    /// Starts listening on 127.0.0.1 at once. Bodies up to `bodyLimit` bytes are accepted (larger → 413).
    /// `keepsRequests: false` only counts what arrives (`requestCount`), so a long benchmark's memory stays flat;
    /// `requests` and `lastRequest` are then empty.
    public init(
        bodyLimit: Int = 32 << 20, keepsRequests: Bool = true,
        logger: Logger = Logger(label: "fake-upstream", level: .error), _ handler: @escaping Handler
    ) throws {
        let state = State(handler, keepsRequests: keepsRequests)
        self.state = state
        let recordingHandler = ClosureHTTPHandler(bodyLimit: bodyLimit) { request in
            let kept =
                state.keepsRequests
                ? RecordedRequest(
                    method: request.method, path: request.path, rawQuery: request.head.rawQuery,
                    query: request.query, headers: request.headers, body: request.body,
                    remoteAddress: request.head.remoteAddress) : nil
            state.recorded.withLock {
                $0.count += 1
                if let kept { $0.requests.append(kept) }
            }
            let current = state.handler.withLock { $0 }
            return await current.handle(request)
        }
        server = HTTPServer(
            configuration: HTTPServerConfiguration(
                host: "127.0.0.1", port: 0, threads: 2, connectionTimeout: .seconds(30), name: "fake-upstream",
                shutdownGracePeriod: .milliseconds(500)),
            handler: recordingHandler, logger: logger, metrics: MetricsRegistry())
        try server.start()
        port = server.port
    }

    /// Answers every request with `status` and a fixed JSON body.
    public convenience init(status: Int, json: String) throws {
        try self.init { _ in .json(status, raw: Array(json.utf8)) }
    }

    /// `http://127.0.0.1:<port>` (no trailing slash).
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Every request received so far, in arrival order.
    public var requests: [RecordedRequest] { state.recorded.withLock { $0.requests } }

    public var lastRequest: RecordedRequest? { state.recorded.withLock { $0.requests.last } }

    /// How many requests arrived (kept or not).
    public var requestCount: Int { state.recorded.withLock { $0.count } }

    /// Replaces the answering closure (for later requests).
    public func respond(with handler: @escaping Handler) { state.handler.withLock { $0 = HandlerBox(handler) } }

    /// Forgets the recorded requests.
    public func reset() { state.recorded.withLock { $0 = ([], 0) } }

    /// Waits until at least `count` requests have arrived (for fire-and-forget callers); returns what arrived,
    /// possibly fewer when `timeout` passes.
    public func waitForRequests(_ count: Int, timeout: Duration = .seconds(5)) async -> [RecordedRequest] {
        let deadline = ContinuousClock.now + timeout
        while requestCount < count && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return requests
    }

    /// Stops the server; requests still in flight after 500 ms are answered 503.
    public func shutdown() async { await server.shutdown() }
}
