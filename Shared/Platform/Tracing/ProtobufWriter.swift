/// The protobuf wire format, written by hand (no protobuf library on these machines): varints, fixed-width
/// little-endian numbers and length-delimited fields, each after its tag `(field << 3) | wire type`.
/// Default values (zero, empty) are omitted, as proto3 encoders do.
struct ProtobufWriter {
    private(set) var bytes: [UInt8] = []

    enum WireType: UInt64 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
        case fixed32 = 5
    }

    mutating func tag(_ field: UInt64, _ type: WireType) {
        varint(field << 3 | type.rawValue)
    }

    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// How many bytes `varint(value)` writes.
    static func varintSize(_ value: UInt64) -> Int {
        value < 0x80 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7
    }

    mutating func varintField(_ field: UInt64, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, .varint)
        varint(value)
    }

    /// An `int64` field: negative values as their two's complement, ten bytes long.
    mutating func int64Field(_ field: UInt64, _ value: Int64) {
        varintField(field, UInt64(bitPattern: value))
    }

    mutating func boolField(_ field: UInt64, _ value: Bool) {
        varintField(field, value ? 1 : 0)
    }

    mutating func fixed64Field(_ field: UInt64, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, .fixed64)
        fixed64(value)
    }

    /// Eight little-endian bytes, no tag.
    mutating func fixed64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Bytes after a tag and length the caller wrote (a `oneof` member is written even when empty or zero).
    mutating func raw<S: Sequence<UInt8>>(_ source: S) {
        bytes.append(contentsOf: source)
    }

    mutating func doubleField(_ field: UInt64, _ value: Double) {
        fixed64Field(field, value.bitPattern)
    }

    mutating func fixed32Field(_ field: UInt64, _ value: UInt32) {
        guard value != 0 else { return }
        tag(field, .fixed32)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// An id field (OTLP's `trace_id`, 16 bytes, or `span_id`, 8): the words' big-endian bytes.
    mutating func idField(_ field: UInt64, _ high: UInt64, _ low: UInt64? = nil) {
        tag(field, .lengthDelimited)
        varint(low == nil ? 8 : 16)
        withUnsafeBytes(of: high.bigEndian) { bytes.append(contentsOf: $0) }
        if let low { withUnsafeBytes(of: low.bigEndian) { bytes.append(contentsOf: $0) } }
    }

    mutating func stringField(_ field: UInt64, _ value: String) {
        guard !value.isEmpty else { return }
        tag(field, .lengthDelimited)
        varint(UInt64(value.utf8.count))
        bytes.append(contentsOf: value.utf8)
    }

    /// A nested message, written even when empty (presence matters for `oneof` and message fields). Written in
    /// place: the body first, then its length inserted before it (one byte for the usual short message), so a
    /// nested message costs neither a buffer of its own nor a copy per level.
    mutating func messageField(_ field: UInt64, _ write: (inout ProtobufWriter) -> Void) {
        tag(field, .lengthDelimited)
        let start = bytes.count
        write(&self)
        let length = UInt64(bytes.count - start)
        if length < 0x80 {
            bytes.insert(UInt8(length), at: start)
        } else {
            var prefix = ProtobufWriter()
            prefix.varint(length)
            bytes.insert(contentsOf: prefix.bytes, at: start)
        }
    }

    /// Reserves room for `count` more bytes.
    mutating func reserve(_ count: Int) { bytes.reserveCapacity(bytes.count + count) }
}
