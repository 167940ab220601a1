import Foundation
import HTTPServer
import Synchronization
import Testing
import Tracing

@testable import GatewayKit

/// Server spans of the gateway's answers, in process: a request refused in the head (no route, no session) is a
/// server span continuing the client's trace like a routed one; preflight and admin answers are not.
@Suite("Gateway server spans (in process)", .serialized)
struct GatewayTracingTests {
    /// Keeps exported spans in memory.
    final class Spans: SpanExporting {
        private let spans = Mutex<[SpanData]>([])
        func export(_ span: SpanData) { spans.withLock { $0.append(span) } }
        func of(_ trace: TraceContext) -> [SpanData] {
            spans.withLock { $0.filter { $0.context.traceID == trace.traceID } }
        }
    }

    /// A client trace of its own per request, so spans of other tests running meanwhile are told apart.
    static func clientTrace() throws -> TraceContext {
        var random = SystemRandomNumberGenerator()
        let traceparent = "00-\(TraceID.random(using: &random))-\(SpanID.random(using: &random))-01"
        return try #require(TraceContext.parse(traceparent: traceparent))
    }

    @Test func answersRefusedInTheHeadAreServerSpansOfTheClientsTrace() async throws {
        let gateway = try GatewayUnderTest()
        let spans = Spans()
        Tracing.install(Tracer(sampler: .parentBased(root: .alwaysOn), exporter: spans))
        defer { Tracing.install(nil) }
        let cases: [(method: String, path: String, auth: Bool, status: Int, name: String, route: String?)] = [
            ("GET", "/v1/nope", false, 404, "GET", nil),
            ("PUT", "/v1/progress", false, 405, "PUT", nil),
            ("GET", "/v1/progress", false, 401, "GET /v1/progress", "/v1/progress"),
            ("GET", "/v1/progress", true, 200, "GET /v1/progress", "/v1/progress"),
        ]
        for c in cases {
            let client = try Self.clientTrace()
            var headers = [(TraceContext.traceparentHeader, client.traceparent)]
            if c.auth { headers.append(("Authorization", try gateway.bearer())) }
            let response = await gateway.send(c.method, c.path, headers: headers)
            #expect(response.status == c.status, "\(c.method) \(c.path)")
            let server = spans.of(client).filter { $0.kind == .server }
            #expect(server.count == 1, "\(c.method) \(c.path)")
            guard let span = server.first else { continue }
            #expect(span.name == c.name && span.parentSpanID == client.spanID)
            #expect(span.attributes.contains(Attribute("http.response.status_code", .int(Int64(c.status)))))
            #expect(span.attributes.contains { $0.key == "http.route" } == (c.route != nil))
            if let route = c.route { #expect(span.attributes.contains(Attribute("http.route", .string(route)))) }
            #expect(span.status == .unset && span.endUnixNano >= span.startUnixNano)
        }
    }

    @Test func preflightAndAdminAnswersAreNotTraced() async throws {
        let gateway = try GatewayUnderTest()
        let spans = Spans()
        Tracing.install(Tracer(sampler: .parentBased(root: .alwaysOn), exporter: spans))
        defer { Tracing.install(nil) }
        for (method, path) in [("OPTIONS", "/v1/identify"), ("GET", "/healthz")] {
            let client = try Self.clientTrace()
            _ = await gateway.send(method, path, headers: [(TraceContext.traceparentHeader, client.traceparent)])
            #expect(spans.of(client).isEmpty, "\(method) \(path)")
        }
    }
}
