import Testing

@testable import Tracing

/// Expected bytes are written out from the protobuf encoding rules (tag = field << 3 | wire type; varint,
/// fixed64/fixed32 little-endian, length-delimited) and the field numbers of opentelemetry-proto's trace.proto.
struct OTLPEncodingTests {
    @Test func varintsAndFixedNumbersFollowTheWireFormat() {
        var w = ProtobufWriter()
        w.varintField(1, 300)  // tag 0x08, 300 = 0b10_0101100 → AC 02
        w.int64Field(2, -1)  // tag 0x10, ten bytes of two's complement
        w.fixed64Field(3, 0x0102)  // tag 0x19
        w.fixed32Field(16, 1)  // tag 16 << 3 | 5 = 133 → 85 01
        w.varintField(4, 0)  // default: omitted
        w.stringField(5, "")  // default: omitted
        #expect(
            w.bytes == [0x08, 0xAC, 0x02, 0x10] + [UInt8](repeating: 0xFF, count: 9) + [0x01]
                + [0x19, 0x02, 0x01, 0, 0, 0, 0, 0, 0] + [0x85, 0x01, 0x01, 0, 0, 0])
    }

    static let traceID = TraceID(hex: "0102030405060708090a0b0c0d0e0f10")!
    static let spanID = SpanID(hex: "1112131415161718")!
    static let parentID = SpanID(hex: "2122232425262728")!

    @Test func aSpanEncodesFieldByField() {
        let span = SpanData(
            context: TraceContext(traceID: Self.traceID, spanID: Self.spanID, sampled: true),
            parentSpanID: Self.parentID,
            name: "GET /v1/x", kind: .server, startUnixNano: 1, endUnixNano: 2,
            attributes: [Attribute("http.response.status_code", 200)], events: [], status: .error("boom"),
            droppedAttributes: 1)
        var w = ProtobufWriter()
        OTLPTraceEncoder.encodeSpan(&w, span)
        let key = Array("http.response.status_code".utf8)  // 25 bytes
        var expected: [UInt8] = [0x0A, 16] + Array(1...16)  // trace_id = 1, bytes
        expected += [0x12, 8] + Array(0x11...0x18)  // span_id = 2
        expected += [0x22, 8] + Array(0x21...0x28)  // parent_span_id = 4
        expected += [0x2A, 9] + Array("GET /v1/x".utf8)  // name = 5
        expected += [0x30, 0x02]  // kind = 6, SERVER
        expected += [0x39, 1, 0, 0, 0, 0, 0, 0, 0]  // start_time_unix_nano = 7, fixed64
        expected += [0x41, 2, 0, 0, 0, 0, 0, 0, 0]  // end_time_unix_nano = 8
        // attributes = 9: KeyValue{key = 1, value = 2: AnyValue{int_value = 3: 200 → C8 01}}
        expected += [0x4A, 32, 0x0A, 25] + key + [0x12, 3, 0x18, 0xC8, 0x01]
        expected += [0x50, 1]  // dropped_attributes_count = 10
        expected += [0x7A, 8, 0x12, 4] + Array("boom".utf8) + [0x18, 2]  // status = 15{message = 2, code = 3 ERROR}
        expected += [0x85, 0x01, 1, 0, 0, 0]  // flags = 16, fixed32, sampled
        #expect(w.bytes == expected)
    }

    @Test func anyValueKindsUseTheirOneofFields() {
        func encoded(_ value: AttributeValue) -> [UInt8] {
            var w = ProtobufWriter()
            OTLPTraceEncoder.keyValue(&w, Attribute("k", value))
            return w.bytes
        }
        #expect(encoded("") == [0x0A, 1, 0x6B, 0x12, 2, 0x0A, 0])  // empty string still present
        #expect(encoded(.bool(false)) == [0x0A, 1, 0x6B, 0x12, 2, 0x10, 0])
        #expect(
            encoded(.int(-2)) == [0x0A, 1, 0x6B, 0x12, 11, 0x18] + [0xFE] + [UInt8](repeating: 0xFF, count: 8) + [1])
        // 1.5 = 0x3FF8000000000000, little-endian
        #expect(encoded(.double(1.5)) == [0x0A, 1, 0x6B, 0x12, 9, 0x21, 0, 0, 0, 0, 0, 0, 0xF8, 0x3F])
    }

    @Test func theRequestWrapsResourceScopeAndSpans() {
        let span = SpanData(
            context: TraceContext(traceID: Self.traceID, spanID: Self.spanID, sampled: false), parentSpanID: nil,
            name: "a", kind: .internal, startUnixNano: 0, endUnixNano: 0, attributes: [], events: [], status: .unset,
            droppedAttributes: 0)
        let body = OTLPTraceEncoder.encode(resource: [Attribute("service.name", "x")], spans: [span])
        let spanBytes: [UInt8] =
            [0x0A, 16] + Array(1...16) + [0x12, 8] + Array(0x11...0x18) + [0x2A, 1, 0x61, 0x30, 1]
        // KeyValue{service.name = "x"}: 0A 0C "service.name" 12 03 0A 01 78 → 19 bytes
        let keyValue: [UInt8] = [0x0A, 12] + Array("service.name".utf8) + [0x12, 3, 0x0A, 1, 0x78]
        let resource: [UInt8] = [0x0A, 21, 0x0A, 19] + keyValue  // ResourceSpans.resource = 1 {attributes = 1}
        let scope: [UInt8] = [0x0A, 9, 0x0A, 7] + Array("mapvest".utf8)  // ScopeSpans.scope = 1 {name = 1}
        let scopeSpans: [UInt8] = scope + [0x12, UInt8(spanBytes.count)] + spanBytes
        let resourceSpans: [UInt8] = resource + [0x12, UInt8(scopeSpans.count)] + scopeSpans
        #expect(body == [0x0A, UInt8(resourceSpans.count)] + resourceSpans)
    }
}
