import HTTPClient
import HTTPServer
import Runtime
import Synchronization

/// An `HTTPHandler` built from two closures, counting `handle` calls and their peak concurrency; its decisions
/// may carry a string to `respond`.
struct TestHandler: HTTPHandler {
    let stats = Stats()
    var decide: @Sendable (HTTPRequestHead) async -> HeadDecision<String?>
    var respond: @Sendable (HTTPRequest, String?) async -> HTTPResponse

    final class Stats: Sendable {
        let handled = Atomic<Int>(0)
        let current = Atomic<Int>(0)
        let peak = Atomic<Int>(0)
    }

    init(
        decide: @escaping @Sendable (HTTPRequestHead) async -> HeadDecision<String?> = { _ in .accept() },
        respond: @escaping @Sendable (HTTPRequest) async -> HTTPResponse
    ) {
        self.init(decide: decide, respondWithState: { request, _ in await respond(request) })
    }

    init(
        decide: @escaping @Sendable (HTTPRequestHead) async -> HeadDecision<String?>,
        respondWithState: @escaping @Sendable (HTTPRequest, String?) async -> HTTPResponse
    ) {
        self.decide = decide
        self.respond = respondWithState
    }

    func head(_ head: HTTPRequestHead) async -> HeadDecision<String?> { await decide(head) }

    func handle(_ request: HTTPRequest, state: String?) async -> HTTPResponse {
        stats.handled.add(1, ordering: .relaxed)
        let now = stats.current.add(1, ordering: .relaxed).newValue
        var peak = stats.peak.load(ordering: .relaxed)
        while now > peak {
            let (exchanged, original) = stats.peak.compareExchange(
                expected: peak, desired: now, ordering: .relaxed)
            if exchanged { break }
            peak = original
        }
        defer { stats.current.subtract(1, ordering: .relaxed) }
        return await respond(request, state)
    }
}

let quietLogger = Logger(label: "http-tests", level: .error)

/// Runs `body` against a started loopback server, then shuts it down.
func withServer(
    _ handler: some HTTPHandler, metrics: MetricsRegistry = MetricsRegistry(),
    configuration: HTTPServerConfiguration = HTTPServerConfiguration(
        host: "127.0.0.1", port: 0, threads: 2, name: "test"),
    _ body: (HTTPServer) async throws -> Void
) async throws {
    let server = HTTPServer(configuration: configuration, handler: handler, logger: quietLogger, metrics: metrics)
    try server.start()
    do {
        try await body(server)
    } catch {
        await server.shutdown()
        throw error
    }
    await server.shutdown()
}

func makeClient(maxConnectionsPerHost: Int = 32) throws -> HTTPClient {
    try HTTPClient.make(logger: quietLogger, maxConnectionsPerHost: maxConnectionsPerHost)
}

/// Seconds elapsed since `start`.
func seconds(since start: ContinuousClock.Instant) -> Double {
    let d = ContinuousClock.now - start
    return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

extension HeadDecision where State == String? {
    /// Reads a body of up to `limit` bytes (413 `request body too large` past it), with no state.
    static func accept(limit: Int = defaultHTTPBodyLimit) -> HeadDecision {
        .readBody(limit: limit, tooLarge: .error(413, "request body too large"), state: nil)
    }
}
