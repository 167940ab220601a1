import Runtime
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A span being recorded: attributes, events and status gather until `end()`, which redacts it and hands it to the
/// tracer's exporter once. A span that is not sampled still carries its context (for propagation) but records
/// nothing.
public final class Span: Sendable {
    public let context: TraceContext
    public let parentSpanID: SpanID?
    public let name: String
    public let kind: SpanKind
    let startUnixNano: UInt64
    /// The name came from a `SpanTemplate`, already scrubbed.
    private let nameIsClean: Bool
    /// Attributes the template's redaction removed.
    private let templateDropped: Int
    private let exporter: (any SpanExporting)?
    private let state: Mutex<State>

    private struct State {
        var attributes: [Attribute]
        var events: [SpanEvent] = []
        var status: SpanStatus = .unset
        var ended = false
    }

    init(
        context: TraceContext, parentSpanID: SpanID?, name: String, kind: SpanKind, attributes: [Attribute],
        exporter: (any SpanExporting)?, startedAgo: Duration = .zero
    ) {
        self.context = context
        self.parentSpanID = parentSpanID
        self.name = name
        self.kind = kind
        self.nameIsClean = false
        self.templateDropped = 0
        self.startUnixNano = exporter == nil ? 0 : WallClock.unixNanoseconds(ago: startedAgo)
        self.exporter = exporter
        self.state = Mutex(State(attributes: exporter == nil ? [] : attributes))
    }

    /// A span of `template`: its name and attributes as the template made them, then `attributes`, with room for
    /// `room` more set later (one array per span).
    init(
        context: TraceContext, parentSpanID: SpanID?, template: SpanTemplate, attributes: [Attribute], room: Int,
        exporter: (any SpanExporting)?
    ) {
        self.context = context
        self.parentSpanID = parentSpanID
        self.name = template.name
        self.kind = template.kind
        self.nameIsClean = true
        self.templateDropped = template.droppedAttributes
        self.startUnixNano = exporter == nil ? 0 : WallClock.unixNanoseconds()
        self.exporter = exporter
        var all: [Attribute] = []
        if exporter != nil {
            all.reserveCapacity(template.attributes.count + attributes.count + room)
            all.append(contentsOf: template.attributes)
            all.append(contentsOf: attributes)
        }
        self.state = Mutex(State(attributes: all))
    }

    /// Whether this span will be exported (it was sampled).
    public var isRecording: Bool { exporter != nil }

    public func setAttribute(_ key: String, _ value: AttributeValue) {
        guard isRecording else { return }
        state.withLock { $0.attributes.append(Attribute(key, value)) }
    }

    /// `setAttribute` under a key constant (its verdict already given).
    public func setAttribute(_ key: AttributeKey, _ value: AttributeValue) {
        guard isRecording else { return }
        state.withLock { $0.attributes.append(Attribute(key, value)) }
    }

    /// Adds an attribute made once in advance (e.g. kept by `Redaction.vetted`), as it is.
    public func setAttribute(_ attribute: Attribute) {
        guard isRecording else { return }
        state.withLock { $0.attributes.append(attribute) }
    }

    /// Sets the status; `.error` carries a generic description only.
    public func setStatus(_ status: SpanStatus) {
        guard isRecording else { return }
        state.withLock { $0.status = status }
    }

    /// Marks the span failed with the error's generic description (its `description`, scrubbed on export) and adds
    /// an `exception` event naming the error's type.
    public func recordError(_ error: any Error) {
        guard isRecording else { return }
        let description = String(describing: error)
        let event = SpanEvent(
            name: "exception", timeUnixNano: WallClock.unixNanoseconds(),
            attributes: [
                Attribute("exception.type", .string(String(describing: type(of: error)))),
                Attribute("exception.message", .string(description)),
            ])
        state.withLock {
            $0.events.append(event)
            $0.status = .error(description)
        }
    }

    /// Ends the span; later calls do nothing.
    public func end() {
        guard let exporter else { return }
        let end = WallClock.unixNanoseconds()
        guard
            let finished = state.withLock({ state -> State? in
                guard !state.ended else { return nil }
                state.ended = true
                return state
            })
        else { return }
        exporter.export(redacted(finished, end: end))
    }

    private func redacted(_ state: State, end: UInt64) -> SpanData {
        let (attributes, dropped) = Redaction.apply(state.attributes)
        let events =
            state.events.isEmpty
            ? []
            : state.events.map {
                SpanEvent(
                    name: Redaction.scrub($0.name), timeUnixNano: $0.timeUnixNano,
                    attributes: Redaction.apply($0.attributes).kept)
            }
        let status: SpanStatus =
            switch state.status {
            case .error(let message): .error(Redaction.scrub(message))
            case let other: other
            }
        return SpanData(
            context: context, parentSpanID: parentSpanID, name: nameIsClean ? name : Redaction.scrub(name), kind: kind,
            startUnixNano: startUnixNano, endUnixNano: max(end, startUnixNano), attributes: attributes,
            events: events, status: status, droppedAttributes: templateDropped + dropped)
    }

    /// The ids log lines written inside this span carry (only when it is recorded).
    var logIDs: LogCorrelation.IDs? {
        isRecording ? LogCorrelation.IDs(traceID: context.traceID.description, spanID: context.spanID.description) : nil
    }
}

/// Where finished spans go: the batching exporter, or a test's memory.
public protocol SpanExporting: Sendable {
    /// Takes one finished span; must not block (the caller is on the request path).
    func export(_ span: SpanData)
}

/// Wall-clock time as OTLP timestamps want it.
enum WallClock {
    static func unixNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// The wall-clock time `ago` before now (now when `ago` is not positive).
    static func unixNanoseconds(ago: Duration) -> UInt64 {
        let now = unixNanoseconds()
        guard ago > .zero else { return now }
        let (seconds, attoseconds) = ago.components
        let nanos = UInt64(clamping: seconds) &* 1_000_000_000 &+ UInt64(clamping: attoseconds / 1_000_000_000)
        return now > nanos ? now - nanos : 0
    }
}
