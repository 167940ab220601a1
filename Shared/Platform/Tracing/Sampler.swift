/// Which new spans are recorded, as `OTEL_TRACES_SAMPLER` / `OTEL_TRACES_SAMPLER_ARG` name it.
///
/// A ratio sampler keeps a trace when the trace id's lower 63 bits fall below `ratio × 2⁶³`, so every process
/// decides the same for one trace. The parent-based forms follow a remote or local parent's `sampled` flag and use
/// the inner rule only for a root.
public enum Sampler: Equatable, Sendable {
    case alwaysOn
    case alwaysOff
    case ratio(Double)
    indirect case parentBased(root: Sampler)

    /// Whether a span of `traceID` under `parent` (nil for a root) is recorded.
    public func shouldSample(traceID: TraceID, parent: TraceContext?) -> Bool {
        switch self {
        case .alwaysOn: return true
        case .alwaysOff: return false
        case .ratio(let ratio): return Self.ratioKeeps(traceID, ratio: ratio)
        case .parentBased(let root):
            if let parent { return parent.sampled }
            return root.shouldSample(traceID: traceID, parent: nil)
        }
    }

    static func ratioKeeps(_ traceID: TraceID, ratio: Double) -> Bool {
        guard ratio < 1 else { return true }
        guard ratio > 0 else { return false }
        let bound = UInt64(ratio * 9_223_372_036_854_775_808.0)
        return traceID.low & 0x7FFF_FFFF_FFFF_FFFF < bound
    }

    /// The sampler the standard variables name; nil with a reason when the name or argument is invalid. Unset
    /// means `parentbased_always_on`, the specification's default.
    public static func named(_ name: String?, argument: String?) -> Result<Sampler, SamplerError> {
        let ratio: Double
        if let argument, !argument.isEmpty {
            guard let parsed = Double(argument), parsed >= 0, parsed <= 1 else {
                return .failure(SamplerError(reason: "OTEL_TRACES_SAMPLER_ARG is not a ratio between 0 and 1"))
            }
            ratio = parsed
        } else {
            ratio = 1
        }
        switch (name ?? "parentbased_always_on").lowercased() {
        case "always_on": return .success(.alwaysOn)
        case "always_off": return .success(.alwaysOff)
        case "traceidratio": return .success(.ratio(ratio))
        case "parentbased_always_on": return .success(.parentBased(root: .alwaysOn))
        case "parentbased_always_off": return .success(.parentBased(root: .alwaysOff))
        case "parentbased_traceidratio": return .success(.parentBased(root: .ratio(ratio)))
        default: return .failure(SamplerError(reason: "OTEL_TRACES_SAMPLER names no known sampler"))
        }
    }
}

/// A sampler setting that does not parse.
public struct SamplerError: Error, Equatable, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}
