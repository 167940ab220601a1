import CCrypto

/// One-shot digests, HMAC, randomness and constant-time comparison over OpenSSL's libcrypto.
public enum Digest {
    /// HMAC-SHA256 of `message` under `key`.
    public static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = key.withUnsafeBufferPointer { k in
            message.withUnsafeBufferPointer { m in
                HMAC(EVP_sha256(), k.baseAddress, Int32(k.count), m.baseAddress, m.count, &out, &length)
            }
        }
        precondition(ok != nil, "HMAC-SHA256 failed")  // only on allocation failure inside OpenSSL
        return Array(out.prefix(Int(length)))
    }

    public static func sha256(_ data: [UInt8]) -> [UInt8] { digest(EVP_sha256(), data) }
    public static func sha1(_ data: [UInt8]) -> [UInt8] { digest(EVP_sha1(), data) }

    private static func digest(_ md: OpaquePointer?, _ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = data.withUnsafeBufferPointer { d in EVP_Digest(d.baseAddress, d.count, &out, &length, md, nil) }
        precondition(ok == 1, "digest failed")
        return Array(out.prefix(Int(length)))
    }

    /// Compares in time that depends only on the lengths, never on where the bytes differ.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, a.count) == 0 }
        }
    }

    /// Cryptographically secure random bytes.
    public static func randomBytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let ok = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        precondition(ok == 1, "RAND_bytes failed")
        return out
    }

    /// `count` random bytes as lower-case hex (e.g. user ids `usr_<32 hex>`).
    public static func randomHex(bytes count: Int) -> String { hex(randomBytes(count)) }

    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A random RFC 4122 version-4 UUID string (lower case).
    public static func uuid() -> String {
        var b = randomBytes(16)
        b[6] = (b[6] & 0x0f) | 0x40
        b[8] = (b[8] & 0x3f) | 0x80
        let h = hex(b)
        let c = Array(h)
        return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20]) + "-"
            + String(c[20..<32])
    }
}
