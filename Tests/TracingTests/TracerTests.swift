import Foundation
import Runtime
import Synchronization
import Testing

@testable import Tracing

/// Keeps exported spans in memory.
final class MemoryExporter: SpanExporting {
    private let spans = Mutex<[SpanData]>([])
    func export(_ span: SpanData) { spans.withLock { $0.append(span) } }
    var exported: [SpanData] { spans.withLock { $0 } }
}

@Suite(.serialized) struct TracerTests {
    @Test func nestedSpansLinkToTheirParentsAndCarryTheRemoteTrace() async throws {
        let exporter = MemoryExporter()
        Tracing.install(Tracer(sampler: .parentBased(root: .alwaysOn), exporter: exporter))
        defer { Tracing.install(nil) }
        let remote = try #require(
            TraceContext.parse(
                traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", tracestate: "a=b"))
        let headers = await Tracing.withSpan("POST /v1/identify", kind: .server, parent: remote) { server in
            await Tracing.withSpan("mapvest.identify.commands publish", kind: .producer) { _ in
                await Task.yield()
                return Tracing.headers
            }
        }
        let spans = exporter.exported
        #expect(spans.map(\.name) == ["mapvest.identify.commands publish", "POST /v1/identify"])
        let (producer, server) = (spans[0], spans[1])
        #expect(server.context.traceID == remote.traceID && producer.context.traceID == remote.traceID)
        #expect(server.parentSpanID == remote.spanID)
        #expect(producer.parentSpanID == server.context.spanID)
        #expect(server.context.traceState == "a=b")
        #expect(headers.first?.1 == producer.context.traceparent)
        #expect(server.endUnixNano >= producer.endUnixNano && producer.startUnixNano >= server.startUnixNano)
    }

    @Test func anUnsampledTraceExportsNothingButStillPropagates() async {
        let exporter = MemoryExporter()
        Tracing.install(Tracer(sampler: .alwaysOff, exporter: exporter))
        defer { Tracing.install(nil) }
        let headers = await Tracing.withSpan("root") { span in
            await Task.yield()
            span?.setAttribute("k", "v")
            return Tracing.headers
        }
        #expect(exporter.exported.isEmpty)
        #expect(headers.first?.1.hasSuffix("-00") == true)
    }

    @Test func withoutATracerNothingIsRecordedOrSent() async {
        Tracing.install(nil)
        let (span, headers) = await Tracing.withSpan("root") { span in
            await Task.yield()
            return (span, Tracing.headers)
        }
        #expect(span == nil)
        #expect(headers.isEmpty)
    }

    struct Refused: Error, CustomStringConvertible {
        var description: String { "upstream refused Bearer abc.def.ghi for ana@example.com" }
    }

    @Test func errorsAndAttributesAreRedactedOnEnd() async throws {
        let exporter = MemoryExporter()
        Tracing.install(Tracer(sampler: .alwaysOn, exporter: exporter))
        defer { Tracing.install(nil) }
        await #expect(throws: Refused.self) {
            try await Tracing.withSpan("expo send", kind: .client) { span in
                await Task.yield()
                span?.setAttribute("push.token", "ExponentPushToken[abc]")
                span?.setAttribute("url.full", "https://exp.host/--/api/v2/push/send?token=secret")
                throw Refused()
            }
        }
        let span = try #require(exporter.exported.first)
        #expect(span.attributes == [Attribute("url.full", "https://exp.host/--/api/v2/push/send?[redacted]")])
        #expect(span.droppedAttributes == 1)
        #expect(span.status == .error("upstream refused Bearer [redacted] for [redacted]"))
        let event = try #require(span.events.first)
        #expect(event.name == "exception")
        #expect(event.attributes.contains(Attribute("exception.type", "Refused")))
        let encoded = String(decoding: OTLPTraceEncoder.encode(resource: [], spans: exporter.exported), as: UTF8.self)
        for secret in ["abc.def.ghi", "ana@example.com", "ExponentPushToken", "secret"] {
            #expect(!encoded.contains(secret), "\(secret)")
        }
    }

    @Test func logLinesInsideASpanCarryItsIds() async throws {
        let exporter = MemoryExporter()
        Tracing.install(Tracer(sampler: .alwaysOn, exporter: exporter))
        defer { Tracing.install(nil) }
        let sink = LogSink.memory()
        let logger = Logger(label: "t", level: .info, sink: sink)
        Tracing.withSpan("sync work") { _ in logger.info("inside") }
        logger.info("outside")
        let span = try #require(exporter.exported.first)
        let lines = try sink.lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines[0]?["trace_id"] as? String == span.context.traceID.description)
        #expect(lines[0]?["span_id"] as? String == span.context.spanID.description)
        #expect(lines[1]?["trace_id"] == nil)
    }

    @Test func aRecordedSpanStartsWhenTheWorkStartedAndJoinsItsParent() async throws {
        let exporter = MemoryExporter()
        Tracing.install(Tracer(sampler: .alwaysOn, exporter: exporter))
        defer { Tracing.install(nil) }
        let remote = try #require(
            TraceContext.parse(traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"))
        let before = WallClock.unixNanoseconds()
        Tracing.record(
            "GET /v1/progress", kind: .server, parent: remote,
            attributes: [Attribute("http.response.status_code", 401)],
            elapsed: .milliseconds(250), status: .error("answered 401"))
        let span = try #require(exporter.exported.first)
        #expect(span.name == "GET /v1/progress" && span.kind == .server)
        #expect(span.context.traceID == remote.traceID && span.parentSpanID == remote.spanID)
        #expect(span.attributes == [Attribute("http.response.status_code", 401)])
        #expect(span.status == .error("answered 401"))
        // Started 250 ms before it was recorded, ended when recorded.
        #expect(span.startUnixNano <= before - 249_000_000 && span.startUnixNano >= before - 300_000_000)
        #expect(span.endUnixNano >= before && span.endUnixNano - span.startUnixNano >= 250_000_000)
    }

    @Test func aRootSpanStartsANewTraceInsideAnotherSpan() async throws {
        let exporter = MemoryExporter()
        Tracing.install(Tracer(sampler: .alwaysOn, exporter: exporter))
        defer { Tracing.install(nil) }
        let headers = await Tracing.withSpan("outer") { _ in
            await Tracing.withRootSpan("briefs.daily run", attributes: [Attribute("mapvest.job", "briefs.daily")]) {
                _ in
                await Tracing.withSpan("mapvest.briefs.commands publish", kind: .producer) { _ in
                    await Task.yield()
                    return Tracing.headers
                }
            }
        }
        let spans = exporter.exported
        #expect(spans.map(\.name) == ["mapvest.briefs.commands publish", "briefs.daily run", "outer"])
        let (producer, run, outer) = (spans[0], spans[1], spans[2])
        #expect(run.parentSpanID == nil && run.context.traceID != outer.context.traceID)
        #expect(producer.parentSpanID == run.context.spanID && producer.context.traceID == run.context.traceID)
        #expect(headers.first?.1 == producer.context.traceparent)
    }
}
