extension String {
    /// Percent-decoding that returns nil on malformed escapes or invalid UTF-8 instead of trapping.
    var removingPercentEncodingSafely: String? {
        var bytes: [UInt8] = []
        var it = utf8.makeIterator()
        while let c = it.next() {
            if c == UInt8(ascii: "%") {
                guard let h = it.next(), let l = it.next(), let hi = hexValue(h), let lo = hexValue(l) else { return nil }
                bytes.append(hi << 4 | lo)
            } else {
                bytes.append(c)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

private func hexValue(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
    default: nil
    }
}
