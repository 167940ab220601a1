import HTTPServer
import Tracing

/// The server span of a request (OpenTelemetry HTTP conventions): named `<method> <route template>`, continuing the
/// client's `traceparent` when it sent a valid one; the status on end, 5xx marked as errors.
enum GatewayTracing {
    static func server(
        _ head: HTTPRequestHead, template: String, isolation: isolated (any Actor)? = #isolation,
        _ body: () async -> HTTPResponse
    ) async -> HTTPResponse {
        guard Tracing.tracer != nil else { return await body() }
        let parent = TraceContext.parse(
            traceparent: head.headers[TraceContext.traceparentHeader],
            tracestate: head.headers[TraceContext.tracestateHeader])
        let attributes = [
            Attribute("http.request.method", .string(head.method)), Attribute("http.route", .string(template)),
        ]
        return await Tracing.withSpan(
            "\(head.method) \(template)", kind: .server, parent: parent, attributes: attributes
        ) { span in
            let response = await body()
            span?.setAttribute("http.response.status_code", .int(Int64(response.status)))
            if response.status >= 500 { span?.setStatus(.error("answered \(response.status)")) }
            return response
        }
    }
}
