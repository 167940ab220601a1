import Contracts
import HTTPServer
import Tracing

/// Who is calling, as the edge established from the headers before any body byte was read.
struct Caller: Sendable {
    /// A verified session bearer, if one was sent (optional auth never rejects; required auth does).
    var session: SessionTokens.Session?
    /// The signed-in user, loaded for routes that require auth.
    var user: User?
    /// `X-Device-Id`, trimmed, 1…128 characters; advisory only, never an authorization proof.
    var deviceId: String?
    /// The client address under `TRUSTED_PROXY_HOPS`.
    var clientIP: String
}

/// What a route needs from the request pipeline once its body (if any) has been read.
struct RouteContext: Sendable {
    let request: HTTPRequest
    /// Path parameters by name (`:ticker` → `ticker`), percent-decoded.
    let parameters: [String: String]
    let requestId: String
    let caller: Caller
}

/// Route-level authentication (docs/COMPATIBILITY.md#sign-in).
enum AuthRequirement: Sendable {
    /// No auth middleware; the limiter still keys by a valid session.
    case none
    /// A valid session is used when present; failures are anonymous.
    case optional
    /// A valid session for an existing user, or 401 before the body is read.
    case required
}

/// One HTTP route: method, path template (the label used in logs and metrics — never the raw path, which may hold
/// token ids), auth, body limit, guards that run before the body is read, and the handler.
struct Route: Sendable {
    /// A check run after auth and before the body is read: a response rejects the request; headers are added to
    /// whatever response the request finally gets.
    typealias Guard = @Sendable (Caller, HTTPRequestHead) async -> (reject: HTTPResponse?, headers: [(String, String)])

    let method: String
    let template: String
    let auth: AuthRequirement
    /// Largest body read; a larger declared or streamed body is answered with `tooLarge` without being read.
    let bodyLimit: Int
    let tooLarge: HTTPResponse
    let guardCheck: Guard?
    let handle: @Sendable (RouteContext) async -> HTTPResponse
    /// For cheap routes outside the limiter and auth (health, config): the answer, computed without suspending.
    let immediate: (@Sendable () -> HTTPResponse)?
    let metrics: RouteMetrics
    /// The name and constant attributes of the route's server spans, redacted once.
    let serverSpan: SpanTemplate

    static let jsonBodyLimit = 1 << 20

    init(
        _ method: String, _ template: String, auth: AuthRequirement = .none, bodyLimit: Int = Route.jsonBodyLimit,
        tooLarge: HTTPResponse = .error(.requestBodyTooLarge), guard guardCheck: Guard? = nil,
        _ handle: @escaping @Sendable (RouteContext) async -> HTTPResponse
    ) {
        self.method = method
        self.template = template
        self.auth = auth
        self.bodyLimit = bodyLimit
        self.tooLarge = tooLarge
        self.guardCheck = guardCheck
        self.handle = handle
        self.immediate = nil
        self.metrics = RouteMetrics(template: template, method: method)
        self.serverSpan = GatewayTracing.serverSpan(method: method, template: template)
    }

    /// A route answered synchronously on the server thread: no body, no auth, not counted by the limiter.
    init(_ method: String, _ template: String, immediate: @escaping @Sendable () -> HTTPResponse) {
        self.method = method
        self.template = template
        self.auth = .none
        self.bodyLimit = 0
        self.tooLarge = .error(.requestBodyTooLarge)
        self.guardCheck = nil
        self.handle = { _ in immediate() }
        self.immediate = immediate
        self.metrics = RouteMetrics(template: template, method: method)
        self.serverSpan = GatewayTracing.serverSpan(method: method, template: template)
    }
}

/// Matches method + path against route templates whose `:name` segments capture one path segment.
struct Router: Sendable {
    private let routes: [(route: Route, segments: [Substring])]
    /// Immediate routes have no parameters: found by one hash lookup on the hot path.
    private let immediate: [String: Route]

    /// Templates without parameters, by `method + " " + template`: the route's index, kept only where the scan in
    /// registration order finds that same route, so the lookup never changes which route answers.
    private let exact: [String: Int]

    init(_ routes: [Route]) {
        let routes = routes.map { ($0, $0.template.split(separator: "/", omittingEmptySubsequences: false)) }
        self.routes = routes
        var immediate: [String: Route] = [:]
        for (route, _) in routes where route.immediate != nil { immediate[route.method + " " + route.template] = route }
        self.immediate = immediate
        var exact: [String: Int] = [:]
        for (index, (route, segments)) in routes.enumerated() where !segments.contains(where: { $0.first == ":" }) {
            let key = route.method + " " + route.template
            if exact[key] == nil, Self.scan(routes, method: route.method, path: route.template)?.index == index {
                exact[key] = index
            }
        }
        self.exact = exact
    }

    /// Every route's method and template, in registration order.
    var served: [(method: String, template: String)] { routes.map { ($0.route.method, $0.route.template) } }

    /// The immediate route for exactly this method and path, if any.
    func immediateRoute(method: String, path: String) -> Route? {
        immediate.isEmpty ? nil : immediate[method + " " + path]
    }

    func match(method: String, path: String) -> (Route, [String: String])? {
        if let index = exact[method + " " + path] { return (routes[index].route, [:]) }
        return Self.scan(routes, method: method, path: path).map { (routes[$0.index].route, $0.parameters) }
    }

    /// The methods some route serves at `path` (empty when no route has this path): a request with another method
    /// is a 405 naming them.
    func methods(path: String) -> [String] {
        var methods: [String] = []
        for (route, _) in routes where !methods.contains(route.method) { methods.append(route.method) }
        return methods.filter { Self.scan(routes, method: $0, path: path) != nil }
    }

    /// The first route in registration order matching method and path, with its path parameters.
    private static func scan(_ routes: [(route: Route, segments: [Substring])], method: String, path: String)
        -> (index: Int, parameters: [String: String])?
    {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        for (index, (route, segments)) in routes.enumerated()
        where route.method == method && segments.count == parts.count {
            var parameters: [String: String] = [:]
            var matched = true
            for (segment, part) in zip(segments, parts) {
                if segment.first == ":" {
                    guard !part.isEmpty, let decoded = String(part).removingPercentEncodingSafely else {
                        matched = false
                        break
                    }
                    parameters[String(segment.dropFirst())] = decoded
                } else if segment != part {
                    matched = false
                    break
                }
            }
            if matched { return (index, parameters) }
        }
        return nil
    }
}
