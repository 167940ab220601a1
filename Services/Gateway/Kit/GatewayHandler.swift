import Contracts
import Foundation
import HTTPServer
import Runtime
import ServiceKit

/// The public HTTP surface: CORS, admin endpoints, the edge (caller, limiter, auth, route guards), body limits,
/// request ids, logs and metrics. Domain work happens in the services; routes turn requests into Kafka commands.
struct GatewayHandler: HTTPHandler {
    typealias RequestState = Pending

    let router: Router
    let admin: AdminEndpoints
    let edge: Edge
    let logger: Logger

    /// What `head` learned, handed to `handle` with the body.
    struct Pending: Sendable {
        let route: Route
        let parameters: [String: String]
        let requestId: String
        let started: ContinuousClock.Instant
        let caller: Caller
        let headers: [(String, String)]
    }

    static let corsHeaders: [(String, String)] = [
        ("Access-Control-Allow-Origin", "*"),
        ("Access-Control-Allow-Methods", "GET, POST, PATCH, DELETE, OPTIONS"),
        ("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, X-Device-Id, Idempotency-Key"),
    ]

    /// Preflight, admin endpoints and immediate routes are answered on the server thread, without suspending.
    func immediate(_ head: HTTPRequestHead) -> HTTPResponse? {
        let template: String
        let metrics: RouteMetrics
        let response: HTTPResponse
        if head.method == "OPTIONS" {
            (template, response) = ("OPTIONS", .empty(204))
            metrics = RouteMetrics.unrouted(template, method: head.method)
        } else if let admin = admin.response(method: head.method, path: head.path) {
            (template, response) = (head.path, admin)
            metrics = RouteMetrics.unrouted(template, method: head.method)
        } else if let route = router.immediateRoute(method: head.method, path: head.path), let now = route.immediate {
            (template, response, metrics) = (route.template, now(), route.metrics)
        } else {
            return nil
        }
        return finish(
            response, template: template, metrics: metrics, head: head, requestId: Self.requestId(from: head),
            started: .now)
    }

    func head(_ head: HTTPRequestHead) async -> HeadDecision<Pending> {
        let started = ContinuousClock.now
        let requestId = Self.requestId(from: head)
        func done(
            _ response: HTTPResponse, _ template: String, _ headers: [(String, String)] = [], route: Route? = nil,
            refused: Bool = true
        ) -> HeadDecision<Pending> {
            var response = response
            response.headers += headers
            let metrics = route?.metrics ?? RouteMetrics.unrouted(template, method: head.method)
            if refused {
                GatewayTracing.refused(head, route: route?.template, status: response.status, since: started)
            }
            return .respond(
                finish(
                    response, template: template, metrics: metrics, head: head, requestId: requestId, started: started))
        }
        if head.method == "OPTIONS" { return done(.empty(204), "OPTIONS", refused: false) }
        if let response = admin.response(method: head.method, path: head.path) {
            return done(response, head.path, refused: false)
        }

        var caller = edge.caller(head)
        var headers: [(String, String)] = []
        if let limiter = edge.limiter, !GlobalRateLimiter.isExempt(method: head.method, path: head.path) {
            let verdict = await limiter.check(caller)
            headers += verdict.headers
            if let reject = verdict.reject { return done(reject, "limited", headers) }
        }
        guard let (route, parameters) = router.match(method: head.method, path: head.path) else {
            // The admin endpoints (`/healthz`, `/readyz`, `/metrics`) answer GET and HEAD.
            let admin = self.admin.response(method: "GET", path: head.path) != nil ? ["GET", "HEAD"] : []
            let allowed = router.methods(path: head.path) + admin
            guard allowed.isEmpty else {
                let allow = ("Allow", (allowed + ["OPTIONS"]).joined(separator: ", "))
                return done(.error(405, "method not allowed", headers: [allow]), "unmatched", headers)
            }
            return done(.error(.notFound), "unmatched", headers)
        }
        switch route.auth {
        case .required:
            switch await edge.authenticate(caller, head) {
            case .success(let authenticated): caller = authenticated
            case .failure(let response): return done(response, route.template, headers, route: route)
            }
        case .optional: break
        case .none: caller.session = nil
        }
        if let guardCheck = route.guardCheck {
            let verdict = await guardCheck(caller, head)
            headers += verdict.headers
            if let reject = verdict.reject { return done(reject, route.template, headers, route: route) }
        }
        var tooLarge = route.tooLarge
        tooLarge.headers += headers
        return .readBody(
            limit: route.bodyLimit,
            tooLarge: finish(
                tooLarge, template: route.template, metrics: route.metrics, head: head, requestId: requestId,
                started: started),
            state: Pending(
                route: route, parameters: parameters, requestId: requestId, started: started, caller: caller,
                headers: headers))
    }

    func handle(_ request: HTTPRequest, state pending: Pending) async -> HTTPResponse {
        await GatewayTracing.server(request.head, span: pending.route.serverSpan) {
            await handleTraced(request, state: pending)
        }
    }

    private func handleTraced(_ request: HTTPRequest, state pending: Pending) async -> HTTPResponse {
        var response: HTTPResponse
        if let problem = JSONBody.textProblem(request) {
            response = .error(400, problem)
        } else {
            response = await pending.route.handle(
                RouteContext(
                    request: request, parameters: pending.parameters, requestId: pending.requestId,
                    caller: pending.caller))
        }
        response.headers += pending.headers
        return finish(
            response, template: pending.route.template, metrics: pending.route.metrics, head: request.head,
            requestId: pending.requestId, started: pending.started)
    }

    /// Adds CORS and request-id headers, then logs and counts the request by its route template.
    private func finish(
        _ response: HTTPResponse, template: String, metrics: RouteMetrics, head: HTTPRequestHead, requestId: String,
        started: ContinuousClock.Instant
    ) -> HTTPResponse {
        var response = response
        response.headers += Self.corsHeaders
        response.headers.append(("X-Request-Id", requestId))
        let elapsed = ContinuousClock.now - started
        metrics.record(status: response.status, seconds: elapsed.inSeconds)
        if response.status >= 500 || logger.minimumLevel <= .debug {
            logger.log(
                response.status >= 500 ? .warning : .debug, "request",
                [
                    LogKeys.requestId: .string(requestId), LogKeys.httpMethod: .string(head.method),
                    LogKeys.httpRoute: .string(template), LogKeys.httpStatus: .int(response.status),
                    LogKeys.durationMs: .double(elapsed.inMilliseconds),
                ])
        }
        return response
    }

    /// A caller-supplied `X-Request-Id` is kept when it is short and plain; otherwise a new one is made.
    private static func requestId(from head: HTTPRequestHead) -> String {
        if let given = head.headers["X-Request-Id"], (1...64).contains(given.utf8.count),
            given.utf8.allSatisfy({
                $0 == UInt8(ascii: "-") || ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 122)
            })
        {
            return given
        }
        return RequestIds.next()
    }
}
