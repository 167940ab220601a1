import HTTPServer
import Runtime

/// `/healthz` (process alive), `/readyz` (accepting work; false while draining) and `/metrics` (Prometheus text).
public struct AdminEndpoints: Sendable {
    public let readiness: Readiness
    public let metrics: MetricsRegistry

    public init(readiness: Readiness, metrics: MetricsRegistry = .shared) {
        self.readiness = readiness
        self.metrics = metrics
    }

    /// The paths answered to `GET` (and `HEAD`).
    public static let paths = ["/healthz", "/readyz", "/metrics"]

    /// The response for an admin path, or nil when `path` is not one.
    public func response(method: String, path: String) -> HTTPResponse? {
        guard method == "GET" || method == "HEAD" else { return nil }
        switch path {
        case "/healthz":
            return .json(200, raw: Array(#"{"status":"ok"}"#.utf8))
        case "/readyz":
            return readiness.isReady
                ? .json(200, raw: Array(#"{"ready":true}"#.utf8)) : .json(503, raw: Array(#"{"ready":false}"#.utf8))
        case "/metrics":
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")],
                body: Array(metrics.render().utf8))
        default:
            return nil
        }
    }
}

/// The admin port's handler: the three admin endpoints, 404 for anything else; bodies are never read.
struct AdminHandler: HTTPHandler {
    let endpoints: AdminEndpoints

    func head(_ head: HTTPRequestHead) async -> HeadDecision<Void> {
        .respond(endpoints.response(method: head.method, path: head.path) ?? .error(404, "not found"))
    }

    func handle(_ request: HTTPRequest, state: Void) async -> HTTPResponse {
        endpoints.response(method: request.head.method, path: request.head.path) ?? .error(404, "not found")
    }
}
