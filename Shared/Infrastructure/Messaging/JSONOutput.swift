import Glibc

/// JSON tokens appended to a growing byte buffer, formatted exactly as Foundation's `JSONEncoder` formats them with
/// `.withoutEscapingSlashes` (checked byte for byte in `StreamingJSONEncoderTests`). Its own memory rather than an
/// `Array`: an append is a capacity check and a store, with no uniqueness check or copy-on-write path.
struct JSONOutput: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// What was written.
    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// The bytes in `range` (clamped to what was written).
    func bytes(_ range: Range<Int>) -> [UInt8] {
        let clamped = range.clamped(to: 0..<count)
        return Array(UnsafeBufferPointer(start: base + clamped.lowerBound, count: clamped.count))
    }

    /// Whether the bytes at `a` and `b` (both written) are the same.
    func same(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
        a.count == b.count && a.upperBound <= count && b.upperBound <= count
            && memcmp(base + a.lowerBound, base + b.lowerBound, a.count) == 0
    }

    private mutating func reserve(_ n: Int) {
        guard count + n > capacity else { return }
        var grown = capacity * 2
        while grown < count + n { grown *= 2 }
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        moved.initialize(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = grown
    }

    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    mutating func append(_ a: UInt8, _ b: UInt8) {
        reserve(2)
        base[count] = a
        base[count + 1] = b
        count += 2
    }

    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (base + count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }

    private mutating func append(_ literal: StaticString) {
        append(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    mutating func null() { append("null") }

    mutating func bool(_ value: Bool) { append(value ? "true" : "false") }

    /// A string literal: `"` and `\` escaped, U+0008, U+0009, U+000A, U+000C and U+000D as `\b \t \n \f \r`, the
    /// other control characters below U+0020 as `\u00xx` (lower-case hex); `/`, U+007F and non-ASCII raw.
    mutating func string(_ value: String) {
        append(0x22)
        if value.utf8.withContiguousStorageIfAvailable({ append(escaping: $0) }) == nil {
            var copy = value
            copy.withUTF8 { append(escaping: $0) }
        }
        append(0x22)
    }

    /// `utf8` with its escapes, in runs between them.
    private mutating func append(escaping utf8: UnsafeBufferPointer<UInt8>) {
        var run = 0
        var i = 0
        while i < utf8.count {
            let byte = utf8[i]
            if byte < 0x20 || byte == 0x22 || byte == 0x5C {
                if run < i { append(UnsafeBufferPointer(rebasing: utf8[run..<i])) }
                escape(byte)
                run = i + 1
            }
            i += 1
        }
        if run == 0 {
            append(utf8)
        } else if run < utf8.count {
            append(UnsafeBufferPointer(rebasing: utf8[run...]))
        }
    }

    private mutating func escape(_ byte: UInt8) {
        switch byte {
        case 0x22, 0x5C: append(0x5C, byte)
        case 0x08: append(0x5C, 0x62)
        case 0x09: append(0x5C, 0x74)
        case 0x0A: append(0x5C, 0x6E)
        case 0x0C: append(0x5C, 0x66)
        case 0x0D: append(0x5C, 0x72)
        default:
            append(0x5C, 0x75)
            append(0x30, 0x30)
            append(Self.hexDigit(byte >> 4), Self.hexDigit(byte & 0xF))
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x57 + nibble }

    /// Decimal digits, `-` first for negatives (`Int64.min` included).
    mutating func integer<T: FixedWidthInteger>(_ value: T) {
        if value < 0 { append(0x2D) }
        var rest = UInt64(value.magnitude)
        var width = 1
        var probe = rest
        while probe >= 10 {
            probe /= 10
            width += 1
        }
        reserve(width)
        var i = count + width - 1
        while rest >= 10 {
            base[i] = 0x30 + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
            i -= 1
        }
        base[i] = 0x30 + UInt8(truncatingIfNeeded: rest)
        count += width
    }

    /// Swift's shortest round-trip `description` (`1e-07`, `1e+21`, `5e-324`, `-0.0`) without a trailing `.0`,
    /// as Foundation writes it: `3.0` → `3`, `-0.0` → `-0`. The caller has rejected non-finite values.
    mutating func number<T: BinaryFloatingPoint & CustomStringConvertible>(_ value: T) {
        var text = value.description
        text.withUTF8 { append($0) }
        if count >= 2, base[count - 2] == 0x2E, base[count - 1] == 0x30 { count -= 2 }
    }
}
