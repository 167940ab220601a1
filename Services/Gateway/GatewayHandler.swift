import Foundation
import HTTPServer
import Runtime
import ServiceKit

/// The public HTTP surface: CORS, admin endpoints, routing, body limits, request ids, logs and metrics.
/// Domain work happens in the services; routes turn requests into Kafka commands.
struct GatewayHandler: HTTPHandler {
    let router: Router
    let admin: AdminEndpoints
    let logger: Logger

    /// What `head` learned, handed to `handle` with the body.
    private struct Pending: Sendable {
        let route: Route
        let parameters: [String: String]
        let requestId: String
        let started: ContinuousClock.Instant
    }

    static let corsHeaders: [(String, String)] = [
        ("Access-Control-Allow-Origin", "*"),
        ("Access-Control-Allow-Methods", "GET, POST, PATCH, DELETE, OPTIONS"),
        ("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, X-Device-Id, Idempotency-Key"),
    ]

    func head(_ head: HTTPRequestHead) async -> HeadDecision {
        let started = ContinuousClock.now
        let requestId = Self.requestId(from: head)
        if head.method == "OPTIONS" {
            return .respond(finish(.empty(204), template: "OPTIONS", head: head, requestId: requestId, started: started))
        }
        if let response = admin.response(method: head.method, path: head.path) {
            return .respond(finish(response, template: head.path, head: head, requestId: requestId, started: started))
        }
        guard let (route, parameters) = router.match(method: head.method, path: head.path) else {
            return .respond(
                finish(.error(404, "not found"), template: "unmatched", head: head, requestId: requestId, started: started))
        }
        return .readBody(
            limit: route.bodyLimit,
            tooLarge: finish(route.tooLarge, template: route.template, head: head, requestId: requestId, started: started),
            state: Pending(route: route, parameters: parameters, requestId: requestId, started: started))
    }

    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        guard let pending = request.state as? Pending else {
            return finish(
                .error(500, "internal error"), template: "unmatched", head: request.head, requestId: "-",
                started: .now)
        }
        let response = await pending.route.handle(
            RouteContext(request: request, parameters: pending.parameters, requestId: pending.requestId))
        return finish(
            response, template: pending.route.template, head: request.head, requestId: pending.requestId,
            started: pending.started)
    }

    /// Adds CORS and request-id headers, then logs and counts the request by its route template.
    private func finish(
        _ response: HTTPResponse, template: String, head: HTTPRequestHead, requestId: String,
        started: ContinuousClock.Instant
    ) -> HTTPResponse {
        var response = response
        response.headers += Self.corsHeaders
        response.headers.append(("X-Request-Id", requestId))
        let labels = ["route": template, "method": head.method, "status": String(response.status)]
        MetricsRegistry.shared.counter("gateway_requests_total", help: "HTTP requests by route", labels: labels)
            .increment()
        MetricsRegistry.shared.histogram(
            "gateway_request_duration_seconds", help: "HTTP request latency by route",
            labels: ["route": template, "method": head.method]
        ).observe(since: started)
        if response.status >= 500 || logger.minimumLevel <= .debug {
            logger.log(
                response.status >= 500 ? .warning : .debug, "request",
                [
                    "request.id": .string(requestId), "http.method": .string(head.method),
                    "http.route": .string(template), "http.status": .int(response.status),
                    "duration.ms": .double((ContinuousClock.now - started).inMilliseconds),
                ])
        }
        return response
    }

    /// A caller-supplied `X-Request-Id` is kept when it is short and plain; otherwise a new one is made.
    private static func requestId(from head: HTTPRequestHead) -> String {
        if let given = head.headers["X-Request-Id"], (1...64).contains(given.utf8.count),
            given.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 122) })
        {
            return given
        }
        return UUID().uuidString.lowercased()
    }
}
