/// A 16-byte trace id (W3C Trace Context); never all zeros.
public struct TraceID: Hashable, Sendable, CustomStringConvertible {
    public let high: UInt64
    public let low: UInt64

    public init?(high: UInt64, low: UInt64) {
        guard high != 0 || low != 0 else { return nil }
        self.high = high
        self.low = low
    }

    /// 32 lower-case hex digits, not all zeros.
    public init?<S: StringProtocol>(hex: S) {
        let utf8 = Array(hex.utf8)
        guard utf8.count == 32, let high = HexDigits.parse(utf8[0..<16]), let low = HexDigits.parse(utf8[16..<32])
        else { return nil }
        self.init(high: high, low: low)
    }

    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> TraceID {
        while true {
            if let id = TraceID(high: generator.next(), low: generator.next()) { return id }
        }
    }

    public var description: String { HexDigits.format(high) + HexDigits.format(low) }
}

/// An 8-byte span id (W3C Trace Context); never zero.
public struct SpanID: Hashable, Sendable, CustomStringConvertible {
    public let value: UInt64

    public init?(_ value: UInt64) {
        guard value != 0 else { return nil }
        self.value = value
    }

    /// 16 lower-case hex digits, not all zeros.
    public init?<S: StringProtocol>(hex: S) {
        let utf8 = Array(hex.utf8)
        guard utf8.count == 16, let value = HexDigits.parse(utf8[0..<16]) else { return nil }
        self.init(value)
    }

    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> SpanID {
        while true {
            if let id = SpanID(generator.next()) { return id }
        }
    }

    public var description: String { HexDigits.format(value) }
}

/// Where a span sits in its trace, as `traceparent` / `tracestate` carry it between processes.
public struct TraceContext: Hashable, Sendable {
    public let traceID: TraceID
    public let spanID: SpanID
    /// The `sampled` trace flag: the caller records this trace.
    public let sampled: Bool
    /// The vendor list, passed on unchanged; empty when absent or invalid.
    public let traceState: String

    public init(traceID: TraceID, spanID: SpanID, sampled: Bool, traceState: String = "") {
        self.traceID = traceID
        self.spanID = spanID
        self.sampled = sampled
        self.traceState = traceState
    }

    public static let traceparentHeader = "traceparent"
    public static let tracestateHeader = "tracestate"

    /// Reads a `traceparent` value (and its `tracestate`): nil when the parent is absent or invalid, in which case
    /// the receiver starts a new trace (W3C Trace Context, "traceparent Header Field Values"). Version `00` must
    /// be exactly 55 characters; a later version may append `-`-separated fields, which are ignored; `ff` is invalid.
    public static func parse(traceparent: String?, tracestate: String? = nil) -> TraceContext? {
        guard let traceparent else { return nil }
        let utf8 = Array(traceparent.trimmed.utf8)
        guard utf8.count >= 55, utf8[2] == 0x2D, utf8[35] == 0x2D, utf8[52] == 0x2D,
            let version = HexDigits.parse(utf8[0..<2]), version != 0xFF,
            let high = HexDigits.parse(utf8[3..<19]), let low = HexDigits.parse(utf8[19..<35]),
            let traceID = TraceID(high: high, low: low),
            let spanValue = HexDigits.parse(utf8[36..<52]), let spanID = SpanID(spanValue),
            let flags = HexDigits.parse(utf8[53..<55])
        else { return nil }
        if version == 0 {
            guard utf8.count == 55 else { return nil }
        } else if utf8.count > 55, utf8[55] != 0x2D {
            return nil
        }
        return TraceContext(
            traceID: traceID, spanID: spanID, sampled: flags & 1 == 1,
            traceState: TraceState.validated(tracestate) ?? "")
    }

    /// The `traceparent` value: version `00`, this span as the parent, the sampled flag.
    public var traceparent: String {
        String(unsafeUninitializedCapacity: 55) { out in
            out.initialize(repeating: 0x2D)  // the dashes stay
            (out[0], out[1], out[53], out[54]) = (0x30, 0x30, 0x30, sampled ? 0x31 : 0x30)
            HexDigits.write(traceID.high, into: out, at: 3)
            HexDigits.write(traceID.low, into: out, at: 19)
            HexDigits.write(spanID.value, into: out, at: 36)
            return 55
        }
    }

    /// The headers a message or request carries: `traceparent`, and `tracestate` when non-empty.
    public var headers: [(String, String)] {
        traceState.isEmpty
            ? [(Self.traceparentHeader, traceparent)]
            : [(Self.traceparentHeader, traceparent), (Self.tracestateHeader, traceState)]
    }
}

/// The `tracestate` rules a receiver checks before passing the list on: at most 32 `key=value` members, at most
/// 512 characters, printable ASCII; an invalid list is dropped, not repaired.
enum TraceState {
    static func validated(_ raw: String?) -> String? {
        guard let raw else { return nil }
        let value = raw.trimmed
        guard !value.isEmpty, value.utf8.count <= 512 else { return nil }
        let members = value.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingSpacesAndTabs }.filter { !$0.isEmpty }
        guard !members.isEmpty, members.count <= 32 else { return nil }
        for member in members {
            guard let equals = member.firstIndex(of: "="), equals != member.startIndex else { return nil }
            let key = member[..<equals]
            let val = member[member.index(after: equals)...]
            guard key.utf8.count <= 256, val.utf8.count <= 256, !val.isEmpty,
                key.utf8.allSatisfy(isKeyByte), val.utf8.allSatisfy(isValueByte), val.utf8.last != 0x20
            else { return nil }
        }
        return members.joined(separator: ",")
    }

    private static func isKeyByte(_ b: UInt8) -> Bool {
        (0x61...0x7A).contains(b) || (0x30...0x39).contains(b) || b == 0x5F || b == 0x2D || b == 0x2A
            || b == 0x2F || b == 0x40
    }

    private static func isValueByte(_ b: UInt8) -> Bool {
        (0x20...0x7E).contains(b) && b != 0x2C && b != 0x3D
    }
}

/// Lower-case hex of 64-bit integers, without Foundation.
enum HexDigits {

    /// Lower-case hex digits only (W3C forbids upper case); at most 16.
    static func parse(_ bytes: ArraySlice<UInt8>) -> UInt64? {
        guard !bytes.isEmpty, bytes.count <= 16 else { return nil }
        var value: UInt64 = 0
        for b in bytes {
            let digit: UInt8
            switch b {
            case 0x30...0x39: digit = b - 0x30
            case 0x61...0x66: digit = b - 0x61 + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }

    static func format(_ value: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { out in
            write(value, into: out, at: 0)
            return 16
        }
    }

    /// The 16 lower-case hex digits of `value` into `out[offset..<offset + 16]`.
    static func write(_ value: UInt64, into out: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        var v = value
        for i in stride(from: offset + 15, through: offset, by: -1) {
            let digit = UInt8(truncatingIfNeeded: v & 0xF)
            out[i] = digit < 10 ? 0x30 + digit : 0x57 + digit
            v >>= 4
        }
    }
}

extension StringProtocol {
    var trimmed: Substring {
        let s = Substring(self)
        return s.trimmingSpacesAndTabs
    }
}

extension Substring {
    var trimmingSpacesAndTabs: Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}
