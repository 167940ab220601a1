/// Query-string and percent-decoding helpers (`application/x-www-form-urlencoded` rules).
public enum QueryString {
    /// First value per key; keys and values are percent-decoded and `+` becomes a space.
    /// A key without `=` maps to the empty string.
    public static func parse(_ raw: Substring) -> [String: String] {
        var out: [String: String] = [:]
        for field in raw.split(separator: "&", omittingEmptySubsequences: true) {
            let key: Substring
            let value: Substring
            if let eq = field.firstIndex(of: "=") {
                key = field[..<eq]
                value = field[field.index(after: eq)...]
            } else {
                key = field
                value = ""
            }
            let k = decode(key, plusAsSpace: true)
            if out[k] == nil { out[k] = decode(value, plusAsSpace: true) }
        }
        return out
    }

    /// Percent-decodes `s`; malformed escapes are kept as they are; invalid UTF-8 becomes U+FFFD.
    public static func decode(_ s: Substring, plusAsSpace: Bool = false) -> String {
        guard s.utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(s)
        }
        return String(decoding: decodedBytes(s.utf8, plusAsSpace: plusAsSpace), as: UTF8.self)
    }

    /// The bytes `s` percent-decodes to (malformed escapes kept as they are), before any UTF-8 check.
    public static func decodedBytes<C: Collection<UInt8>>(_ s: C, plusAsSpace: Bool) -> [UInt8] {
        decode(s, plusAsSpace: plusAsSpace, strict: false) ?? Array(s)
    }

    /// `s` percent-decoded (`+` stays a `+`), or nil when an escape is malformed (`%` without two hex digits) or
    /// the result is not valid UTF-8: for path segments, where a lenient reading would hide a client's mistake.
    public static func strictlyDecoded(_ s: String) -> String? {
        decode(s.utf8, plusAsSpace: false, strict: true).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// The one percent-decoder: a malformed escape is kept as it is, or (`strict`) makes the result nil.
    private static func decode<C: Collection<UInt8>>(_ s: C, plusAsSpace: Bool, strict: Bool) -> [UInt8]? {
        let utf8 = Array(s)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var i = 0
        while i < utf8.count {
            let c = utf8[i]
            if c == UInt8(ascii: "%"), i + 2 < utf8.count, let hi = hex(utf8[i + 1]), let lo = hex(utf8[i + 2]) {
                bytes.append(hi << 4 | lo)
                i += 3
            } else if c == UInt8(ascii: "%") && strict {
                return nil
            } else if c == UInt8(ascii: "+") && plusAsSpace {
                bytes.append(UInt8(ascii: " "))
                i += 1
            } else {
                bytes.append(c)
                i += 1
            }
        }
        return bytes
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
