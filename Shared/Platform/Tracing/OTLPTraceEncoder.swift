/// Encodes spans as an OTLP `ExportTraceServiceRequest` protobuf body (opentelemetry-proto
/// `collector/trace/v1/trace_service.proto` and `trace/v1/trace.proto`), field numbers as those files give them.
public enum OTLPTraceEncoder {
    /// The instrumentation scope every span of this project is reported under.
    public static let scopeName = "mapvest"

    /// One `ResourceSpans` (this process's resource attributes) holding one `ScopeSpans` with `spans`.
    public static func encode(resource: [Attribute], spans: [SpanData]) -> [UInt8] {
        var request = ProtobufWriter()
        request.reserve(512 + 320 * spans.count)
        // ExportTraceServiceRequest.resource_spans = 1
        request.messageField(1) { resourceSpans in
            // ResourceSpans.resource = 1 → Resource.attributes = 1
            resourceSpans.messageField(1) { r in
                for attribute in resource { r.messageField(1) { keyValue(&$0, attribute) } }
            }
            // ResourceSpans.scope_spans = 2
            resourceSpans.messageField(2) { scopeSpans in
                // ScopeSpans.scope = 1 → InstrumentationScope.name = 1
                scopeSpans.messageField(1) { $0.stringField(1, scopeName) }
                // ScopeSpans.spans = 2
                for span in spans { scopeSpans.messageField(2) { encodeSpan(&$0, span) } }
            }
        }
        return request.bytes
    }

    static func encodeSpan(_ w: inout ProtobufWriter, _ span: SpanData) {
        w.idField(1, span.context.traceID.high, span.context.traceID.low)  // trace_id
        w.idField(2, span.context.spanID.value)  // span_id
        w.stringField(3, span.context.traceState)  // trace_state
        if let parent = span.parentSpanID { w.idField(4, parent.value) }  // parent_span_id
        w.stringField(5, span.name)  // name
        w.varintField(6, UInt64(span.kind.rawValue))  // kind
        w.fixed64Field(7, span.startUnixNano)  // start_time_unix_nano
        w.fixed64Field(8, span.endUnixNano)  // end_time_unix_nano
        for attribute in span.attributes { w.messageField(9) { keyValue(&$0, attribute) } }  // attributes
        w.varintField(10, UInt64(span.droppedAttributes))  // dropped_attributes_count
        for event in span.events {  // events = 11
            w.messageField(11) { e in
                e.fixed64Field(1, event.timeUnixNano)  // time_unix_nano
                e.stringField(2, event.name)  // name
                for attribute in event.attributes { e.messageField(3) { keyValue(&$0, attribute) } }
            }
        }
        switch span.status {  // status = 15: message = 2, code = 3 (UNSET 0, OK 1, ERROR 2)
        case .unset: break
        case .ok: w.messageField(15) { $0.varintField(3, 1) }
        case .error(let message):
            w.messageField(15) { s in
                s.stringField(2, message)
                s.varintField(3, 2)
            }
        }
        // flags = 16: the W3C trace flags in the low byte.
        w.fixed32Field(16, span.context.sampled ? 1 : 0)
    }

    /// `KeyValue { key = 1; AnyValue value = 2 }`, `AnyValue { string 1, bool 2, int64 3, double 4 }`.
    static func keyValue(_ w: inout ProtobufWriter, _ attribute: Attribute) {
        w.stringField(1, attribute.key)
        w.messageField(2) { v in
            switch attribute.value {
            case .string(let s):
                v.tag(1, .lengthDelimited)
                v.varint(UInt64(s.utf8.count))
                v.raw(s.utf8)
            case .bool(let b):
                v.tag(2, .varint)
                v.varint(b ? 1 : 0)
            case .int(let i):
                v.tag(3, .varint)
                v.varint(UInt64(bitPattern: i))
            case .double(let d):
                v.tag(4, .fixed64)
                v.fixed64(d.bitPattern)
            }
        }
    }
}
