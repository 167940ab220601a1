/// Base64url without padding (RFC 7515 §2), as JWTs use it.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let reverse: [Int16] = {
        var table = [Int16](repeating: -1, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = Int16(i) }
        return table
    }()

    public static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var i = 0
        while i + 2 < bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out += [
                alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)],
                alphabet[Int(n & 63)],
            ]
            i += 3
        }
        let rest = bytes.count - i
        if rest == 1 {
            let n = UInt32(bytes[i]) << 16
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)]]
        } else if rest == 2 {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)]]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Nil for any character outside the alphabet (padding included) or an impossible length.
    public static func decode(_ text: Substring) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 4 != 1 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count * 3 / 4)
        var acc: UInt32 = 0
        var bits = 0
        for c in chars {
            let v = reverse[Int(c)]
            guard v >= 0 else { return nil }
            acc = acc << 6 | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
            }
        }
        return out
    }
}
