import Testing

@testable import Tracing

struct TraceContextTests {
    static let valid = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

    @Test func parsesAndFormatsTheSpecExample() throws {
        let context = try #require(TraceContext.parse(traceparent: Self.valid, tracestate: "congo=t61rcWkgMzE"))
        #expect(context.traceID.description == "0af7651916cd43dd8448eb211c80319c")
        #expect(context.spanID.description == "b7ad6b7169203331")
        #expect(context.sampled)
        #expect(context.traceState == "congo=t61rcWkgMzE")
        #expect(context.traceparent == Self.valid)
        #expect(context.headers.map(\.0) == ["traceparent", "tracestate"])
        let unsampled = try #require(TraceContext.parse(traceparent: Self.valid.replacingSuffix("00")))
        #expect(!unsampled.sampled)
        #expect(unsampled.headers.count == 1)
    }

    @Test(arguments: [
        "",
        "00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-01",  // upper case
        "00-00000000000000000000000000000000-b7ad6b7169203331-01",  // zero trace id
        "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",  // zero span id
        "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",  // forbidden version
        "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",  // version 00 is exact
        "00_0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",  // separator
        "00-0af7651916cd43dd8448eb211c80319-b7ad6b7169203331-01",  // short trace id
        "00-0af7651916cd43dd8448eb211c80319c-b7ad6b716920333g-01",  // not hex
        "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01x",  // later version, no separator
    ])
    func refusesInvalidParents(_ value: String) {
        #expect(TraceContext.parse(traceparent: value) == nil)
    }

    @Test func acceptsLaterVersionsWithMoreFields() throws {
        let context = try #require(
            TraceContext.parse(traceparent: "cc-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-what-the-future"))
        #expect(context.traceparent == Self.valid)
    }

    @Test func dropsAnInvalidTraceStateButKeepsTheParent() throws {
        let tooMany = (0..<33).map { "k\($0)=v" }.joined(separator: ",")
        for bad in [tooMany, "=v", "UPPER=v", "k=", "k=a,b", String(repeating: "a", count: 600)] {
            let context = try #require(TraceContext.parse(traceparent: Self.valid, tracestate: bad))
            #expect(context.traceState == "", "\(bad.prefix(20))")
        }
        let kept = try #require(
            TraceContext.parse(traceparent: Self.valid, tracestate: "rojo=00f067aa0ba902b7, congo=t61"))
        #expect(kept.traceState == "rojo=00f067aa0ba902b7,congo=t61")
    }

    @Test func idsAreBigEndianBytes() throws {
        let trace = try #require(TraceID(hex: "0102030405060708090a0b0c0d0e0f10"))
        var traceField = ProtobufWriter()
        traceField.idField(1, trace.high, trace.low)
        #expect(traceField.bytes == [0x0A, 16] + Array(1...16))
        let span = try #require(SpanID(hex: "1112131415161718"))
        var spanField = ProtobufWriter()
        spanField.idField(2, span.value)
        #expect(spanField.bytes == [0x12, 8] + Array(0x11...0x18))
        var random = SystemRandomNumberGenerator()
        #expect(TraceID(hex: TraceID.random(using: &random).description) != nil)
    }
}

extension String {
    fileprivate func replacingSuffix(_ suffix: String) -> String { String(dropLast(suffix.count)) + suffix }
}
