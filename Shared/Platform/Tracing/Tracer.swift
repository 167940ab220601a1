import Runtime
import Synchronization

/// Starts spans: picks ids, asks the sampler, and hands finished spans to the exporter.
public final class Tracer: Sendable {
    public let sampler: Sampler
    private let exporter: any SpanExporting

    public init(sampler: Sampler, exporter: any SpanExporting) {
        self.sampler = sampler
        self.exporter = exporter
    }

    /// A new span: a child of `parent` (same trace, its span as the parent), or the root of a new trace.
    public func startSpan(
        _ name: String, kind: SpanKind, parent: TraceContext?, attributes: [Attribute] = [],
        startedAgo: Duration = .zero
    ) -> Span {
        let context = newContext(parent: parent)
        return Span(
            context: context, parentSpanID: parent?.spanID, name: name, kind: kind, attributes: attributes,
            exporter: context.sampled ? exporter : nil, startedAgo: startedAgo)
    }

    /// A new span of `template` (see `startSpan(_:kind:parent:attributes:startedAgo:)`), `attributes` after the
    /// template's and room for `room` more.
    public func startSpan(_ template: SpanTemplate, parent: TraceContext?, attributes: [Attribute] = [], room: Int = 2)
        -> Span
    {
        let context = newContext(parent: parent)
        return Span(
            context: context, parentSpanID: parent?.spanID, template: template, attributes: attributes, room: room,
            exporter: context.sampled ? exporter : nil)
    }

    /// A new span's context: a child of `parent` (its trace and trace state), else the root of a new trace; sampled
    /// as the sampler decides.
    private func newContext(parent: TraceContext?) -> TraceContext {
        var random = SystemRandomNumberGenerator()
        let traceID = parent?.traceID ?? TraceID.random(using: &random)
        return TraceContext(
            traceID: traceID, spanID: SpanID.random(using: &random),
            sampled: sampler.shouldSample(traceID: traceID, parent: parent), traceState: parent?.traceState ?? "")
    }
}

/// The process's tracer and the span the current task works in. With no tracer installed (no OTLP endpoint set)
/// every call here returns at once: no ids, no spans, no headers.
public enum Tracing {
    private static let installed = Mutex<Tracer?>(nil)
    /// Whether a tracer is installed, read without the lock: with tracing off (no endpoint) the checks on the
    /// request path cost one atomic load each.
    private static let isInstalled = Atomic<Bool>(false)

    /// Installs (or with nil removes) the process's tracer; `ServiceMain` does it once at start.
    public static func install(_ tracer: Tracer?) {
        installed.withLock {
            $0 = tracer
            isInstalled.store(tracer != nil, ordering: .releasing)
        }
        LogCorrelation.setSource(tracer == nil ? nil : { @Sendable in Tracing.current?.logIDs })
    }

    public static var tracer: Tracer? {
        guard isInstalled.load(ordering: .acquiring) else { return nil }
        return installed.withLock { $0 }
    }

    /// The span the current task works in.
    @TaskLocal public static var current: Span?

    /// The headers that carry the current span to the next hop (`traceparent`, `tracestate`); empty when no span.
    public static var headers: [(String, String)] { current?.context.headers ?? [] }

    /// Runs `body` in a new span (name and attributes are only built when a tracer is installed), a child of `parent` when given (a context read from a message or request), else of
    /// the current span; ends it afterwards, recording a thrown error. Without a tracer, `body(nil)` only.
    public static func withSpan<T>(
        _ name: @autoclosure () -> String, kind: SpanKind = .internal, parent: TraceContext? = nil,
        attributes: @autoclosure () -> [Attribute] = [], isolation: isolated (any Actor)? = #isolation,
        _ body: (Span?) async throws -> T
    ) async rethrows -> T {
        guard let tracer else { return try await body(nil) }
        let span = tracer.startSpan(name(), kind: kind, parent: parent ?? current?.context, attributes: attributes())
        return try await run(body, in: span)
    }

    /// `withSpan` for a span of `template` (its name and attributes redacted once), `attributes` after the template's.
    public static func withSpan<T>(
        _ template: SpanTemplate, parent: TraceContext? = nil, attributes: @autoclosure () -> [Attribute] = [],
        isolation: isolated (any Actor)? = #isolation, _ body: (Span?) async throws -> T
    ) async rethrows -> T {
        guard let tracer else { return try await body(nil) }
        let span = tracer.startSpan(template, parent: parent ?? current?.context, attributes: attributes())
        return try await run(body, in: span)
    }

    /// The synchronous `withSpan` for a span of `template`.
    public static func withSpan<T>(
        _ template: SpanTemplate, parent: TraceContext? = nil, attributes: @autoclosure () -> [Attribute] = [],
        _ body: (Span?) throws -> T
    ) rethrows -> T {
        guard let tracer else { return try body(nil) }
        let span = tracer.startSpan(template, parent: parent ?? current?.context, attributes: attributes())
        return try run(body, in: span)
    }

    /// Runs `body` in the root span of a new trace, whatever span the task is in: work no request caused (a
    /// scheduled run). Without a tracer, `body(nil)` only.
    public static func withRootSpan<T>(
        _ name: @autoclosure () -> String, attributes: @autoclosure () -> [Attribute] = [],
        isolation: isolated (any Actor)? = #isolation, _ body: (Span?) async throws -> T
    ) async rethrows -> T {
        guard tracer != nil else { return try await body(nil) }
        return try await $current.withValue(nil) { try await withSpan(name(), attributes: attributes(), body) }
    }

    /// Records a span for work that already ended: it started `elapsed` ago and ends now, a child of `parent` when
    /// given, else of the current span (e.g. a request refused before its route ran). Without a tracer, nothing.
    public static func record(
        _ name: @autoclosure () -> String, kind: SpanKind, parent: TraceContext? = nil,
        attributes: @autoclosure () -> [Attribute] = [], elapsed: Duration, status: SpanStatus = .unset
    ) {
        guard let tracer else { return }
        let span = tracer.startSpan(
            name(), kind: kind, parent: parent ?? current?.context, attributes: attributes(), startedAgo: elapsed)
        if status != .unset { span.setStatus(status) }
        span.end()
    }

    /// Like `withSpan`, but only inside a span: a client call (Postgres, Redis, HTTP) made outside any traced work —
    /// a background sweep, the exporter's own POSTs — starts no trace of its own.
    public static func withChildSpan<T>(
        _ name: @autoclosure () -> String, kind: SpanKind = .client, attributes: @autoclosure () -> [Attribute] = [],
        isolation: isolated (any Actor)? = #isolation, _ body: (Span?) async throws -> T
    ) async rethrows -> T {
        guard current != nil else { return try await body(nil) }
        return try await withSpan(name(), kind: kind, attributes: attributes(), body)
    }

    /// The synchronous form of `withSpan`, for code off the cooperative pool (a C library's own thread).
    public static func withSpan<T>(
        _ name: @autoclosure () -> String, kind: SpanKind = .internal, parent: TraceContext? = nil,
        attributes: @autoclosure () -> [Attribute] = [], _ body: (Span?) throws -> T
    ) rethrows -> T {
        guard let tracer else { return try body(nil) }
        let span = tracer.startSpan(name(), kind: kind, parent: parent ?? current?.context, attributes: attributes())
        return try run(body, in: span)
    }

    /// Runs `body` with `span` current, then ends the span, recording a thrown error.
    private static func run<T>(
        _ body: (Span?) async throws -> T, in span: Span, isolation: isolated (any Actor)? = #isolation
    ) async rethrows -> T {
        defer { span.end() }
        do {
            return try await $current.withValue(span) { try await body(span) }
        } catch {
            span.recordError(error)
            throw error
        }
    }

    /// The synchronous `run(_:in:)`.
    private static func run<T>(_ body: (Span?) throws -> T, in span: Span) rethrows -> T {
        defer { span.end() }
        do {
            return try $current.withValue(span) { try body(span) }
        } catch {
            span.recordError(error)
            throw error
        }
    }
}
