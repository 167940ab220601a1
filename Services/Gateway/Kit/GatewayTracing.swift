import HTTPServer
import Tracing

/// The server span of a request (OpenTelemetry HTTP conventions): named `<method> <route template>`, continuing the
/// client's `traceparent` when it sent a valid one; the status on end, 5xx marked as errors.
enum GatewayTracing {
    /// The server span of a request answered in the head, before its route ran (401, 404, 405, 429, a guard's
    /// refusal): started when the head arrived, ended now. Named `<method> <route template>`, or `<method>` alone
    /// when no route matched (OpenTelemetry's name for an unrouted request).
    static func refused(_ head: HTTPRequestHead, route: String?, status: Int, since started: ContinuousClock.Instant) {
        guard Tracing.tracer != nil else { return }
        var attributes = [
            Attribute("http.request.method", .string(head.method)),
            Attribute("http.response.status_code", .int(Int64(status))),
        ]
        if let route { attributes.append(Attribute("http.route", .string(route))) }
        Tracing.record(
            route.map { "\(head.method) \($0)" } ?? head.method, kind: .server, parent: clientContext(head),
            attributes: attributes, elapsed: .now - started,
            status: status >= 500 ? .error("answered \(status)") : .unset)
    }

    /// The client's valid `traceparent` (and `tracestate`), if it sent one.
    private static func clientContext(_ head: HTTPRequestHead) -> TraceContext? {
        TraceContext.parse(
            traceparent: head.headers[TraceContext.traceparentHeader],
            tracestate: head.headers[TraceContext.tracestateHeader])
    }

    /// A routed request's server span: `<method> <route template>` with both as attributes (made once per route).
    static func serverSpan(method: String, template: String) -> SpanTemplate {
        SpanTemplate(
            "\(method) \(template)", kind: .server,
            attributes: [Attribute(.httpRequestMethod, .string(method)), Attribute(.httpRoute, .string(template))])
    }

    /// Runs a routed request in its server span (`span`, the route's `serverSpan`); the status on end.
    static func server(
        _ head: HTTPRequestHead, span template: SpanTemplate, isolation: isolated (any Actor)? = #isolation,
        _ body: () async -> HTTPResponse
    ) async -> HTTPResponse {
        guard Tracing.tracer != nil else { return await body() }
        return await Tracing.withSpan(template, parent: clientContext(head)) { span in
            let response = await body()
            span?.setAttribute(.httpResponseStatusCode, .int(Int64(response.status)))
            if response.status >= 500 { span?.setStatus(.error("answered \(response.status)")) }
            return response
        }
    }
}
