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
                for attribute in resource { keyValue(&r, field: 1, attribute) }
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
        for attribute in span.attributes { keyValue(&w, field: 9, attribute) }  // attributes
        w.varintField(10, UInt64(span.droppedAttributes))  // dropped_attributes_count
        for event in span.events {  // events = 11
            w.messageField(11) { e in
                e.fixed64Field(1, event.timeUnixNano)  // time_unix_nano
                e.stringField(2, event.name)  // name
                for attribute in event.attributes { keyValue(&e, field: 3, attribute) }
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

    /// A `KeyValue` message (see `keyValue(_:_:)`) as field `field`. Its lengths are known before writing (it is
    /// the most frequent message of a batch), so they are written first instead of inserted after the bodies.
    static func keyValue(_ w: inout ProtobufWriter, field: UInt64, _ attribute: Attribute) {
        let keyCount = attribute.key.utf8.count
        let keySize = keyCount == 0 ? 0 : 1 + ProtobufWriter.varintSize(UInt64(keyCount)) + keyCount
        let valueSize = anyValueSize(attribute.value)
        w.tag(field, .lengthDelimited)
        w.varint(UInt64(keySize + 1 + ProtobufWriter.varintSize(UInt64(valueSize)) + valueSize))
        keyValue(&w, attribute)
    }

    /// `KeyValue { key = 1; AnyValue value = 2 }`, `AnyValue { string 1, bool 2, int64 3, double 4 }`.
    static func keyValue(_ w: inout ProtobufWriter, _ attribute: Attribute) {
        w.stringField(1, attribute.key)
        w.tag(2, .lengthDelimited)
        w.varint(UInt64(anyValueSize(attribute.value)))
        switch attribute.value {
        case .string(let s):
            w.tag(1, .lengthDelimited)
            w.varint(UInt64(s.utf8.count))
            w.raw(s.utf8)
        case .bool(let b):
            w.tag(2, .varint)
            w.varint(b ? 1 : 0)
        case .int(let i):
            w.tag(3, .varint)
            w.varint(UInt64(bitPattern: i))
        case .double(let d):
            w.tag(4, .fixed64)
            w.fixed64(d.bitPattern)
        }
    }

    /// The bytes of an `AnyValue` message holding `value` (one tag byte, then the value).
    private static func anyValueSize(_ value: AttributeValue) -> Int {
        switch value {
        case .string(let s): 1 + ProtobufWriter.varintSize(UInt64(s.utf8.count)) + s.utf8.count
        case .bool: 2
        case .int(let i): 1 + ProtobufWriter.varintSize(UInt64(bitPattern: i))
        case .double: 9
        }
    }
}
