import Testing

@testable import Tracing

struct SamplerTests {
    static func trace(low: UInt64) -> TraceID { TraceID(high: 1, low: low)! }
    static let parentOn = TraceContext(traceID: trace(low: 1), spanID: SpanID(1)!, sampled: true)
    static let parentOff = TraceContext(traceID: trace(low: 1), spanID: SpanID(1)!, sampled: false)

    @Test func fixedSamplersIgnoreTheTraceId() {
        #expect(Sampler.alwaysOn.shouldSample(traceID: Self.trace(low: .max), parent: Self.parentOff))
        #expect(!Sampler.alwaysOff.shouldSample(traceID: Self.trace(low: 0), parent: Self.parentOn))
    }

    @Test func ratioComparesTheLowerBitsWithTheBound() {
        let half = Sampler.ratio(0.5)
        // 0.5 × 2⁶³ = 2⁶²: ids below are kept, from it on dropped; the top bit does not count.
        #expect(half.shouldSample(traceID: Self.trace(low: (1 << 62) - 1), parent: nil))
        #expect(!half.shouldSample(traceID: Self.trace(low: 1 << 62), parent: nil))
        #expect(half.shouldSample(traceID: Self.trace(low: 1 << 63 | 5), parent: nil))
        #expect(!Sampler.ratio(0).shouldSample(traceID: Self.trace(low: 1), parent: nil))
        #expect(Sampler.ratio(1).shouldSample(traceID: Self.trace(low: .max), parent: nil))
        var random = SystemRandomNumberGenerator()
        let kept = (0..<4000).filter { _ in
            Sampler.ratio(0.25).shouldSample(traceID: TraceID.random(using: &random), parent: nil)
        }.count
        #expect((800...1200).contains(kept))
    }

    @Test func parentBasedFollowsTheParentAndUsesTheRootRuleOtherwise() {
        let sampler = Sampler.parentBased(root: .alwaysOff)
        #expect(sampler.shouldSample(traceID: Self.trace(low: 1), parent: Self.parentOn))
        #expect(!sampler.shouldSample(traceID: Self.trace(low: 1), parent: Self.parentOff))
        #expect(!sampler.shouldSample(traceID: Self.trace(low: 1), parent: nil))
    }

    @Test func namesAndArgumentsParseAsTheStandardVariablesSay() {
        #expect(Sampler.named(nil, argument: nil) == .success(.parentBased(root: .alwaysOn)))
        #expect(Sampler.named("parentbased_traceidratio", argument: "0.1") == .success(.parentBased(root: .ratio(0.1))))
        #expect(Sampler.named("TraceIdRatio", argument: nil) == .success(.ratio(1)))
        #expect(Sampler.named("always_off", argument: nil) == .success(.alwaysOff))
        #expect(throws: SamplerError.self) { try Sampler.named("sometimes", argument: nil).get() }
        #expect(throws: SamplerError.self) { try Sampler.named("traceidratio", argument: "1.5").get() }
        #expect(throws: SamplerError.self) { try Sampler.named("traceidratio", argument: "half").get() }
    }
}
