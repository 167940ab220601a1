/// JSON tokens appended to a byte buffer, formatted exactly as Foundation's `JSONEncoder` formats them with
/// `.withoutEscapingSlashes` (checked byte for byte in `ReplyJSONEncoderTests`).
struct JSONOutput {
    var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func append(_ byte: UInt8) { bytes.append(byte) }

    mutating func append(_ a: UInt8, _ b: UInt8) {
        bytes.append(a)
        bytes.append(b)
    }

    mutating func null() { bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C]) }

    mutating func bool(_ value: Bool) {
        if value {
            bytes.append(contentsOf: [0x74, 0x72, 0x75, 0x65])
        } else {
            bytes.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65])
        }
    }

    /// A string literal: `"` and `\` escaped, U+0008, U+0009, U+000A, U+000C and U+000D as `\b \t \n \f \r`, the
    /// other control characters below U+0020 as `\u00xx` (lower-case hex); `/`, U+007F and non-ASCII raw.
    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            bytes.append(0x22)
            var run = 0
            for i in 0..<utf8.count {
                let byte = utf8[i]
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
                if run < i { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<i])) }
                escape(byte)
                run = i + 1
            }
            if run < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run...])) }
            bytes.append(0x22)
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
        if value < 0 { bytes.append(0x2D) }
        var rest = UInt64(value.magnitude)
        var width = 1
        var probe = rest
        while probe >= 10 {
            probe /= 10
            width += 1
        }
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0x30, count: width))
        bytes.withUnsafeMutableBufferPointer { out in
            var i = start + width - 1
            while rest >= 10 {
                out[i] = 0x30 + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
                i -= 1
            }
            out[i] = 0x30 + UInt8(truncatingIfNeeded: rest)
        }
    }

    /// Swift's shortest round-trip `description` (`1e-07`, `1e+21`, `5e-324`, `-0.0`) without a trailing `.0`,
    /// as Foundation writes it: `3.0` → `3`, `-0.0` → `-0`. The caller has rejected non-finite values.
    mutating func number<T: BinaryFloatingPoint & CustomStringConvertible>(_ value: T) {
        bytes.append(contentsOf: value.description.utf8)
        let n = bytes.count
        if n >= 2, bytes[n - 2] == 0x2E, bytes[n - 1] == 0x30 { bytes.removeLast(2) }
    }
}
