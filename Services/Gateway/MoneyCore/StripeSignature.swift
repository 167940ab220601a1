/// Checks a `Stripe-Signature` header (`t=<unix>,v1=<hex>[,v1=<hex>…]`): an HMAC-SHA256 under one of the
/// webhook secrets over `<t>.<raw body>`, compared in constant time, with `t` inside the tolerance. Several `v1`
/// entries (and several secrets) are accepted so a secret rotation never drops events.
public struct StripeSignature: Sendable {
    /// Why a delivery is refused; every case answers the same 400.
    public enum Failure: Error, Sendable, Equatable {
        case missingHeader
        case malformedHeader
        case stale
        case mismatch
    }

    /// Stripe's libraries' default: five minutes either way.
    public static let defaultTolerance: Int64 = 300

    /// The HMAC-SHA256 function (key, message) → 32 bytes, supplied by the shell's crypto library.
    public typealias MAC = @Sendable (_ key: [UInt8], _ message: [UInt8]) -> [UInt8]

    let secrets: [[UInt8]]
    let tolerance: Int64
    let mac: MAC

    public init(secrets: [[UInt8]], tolerance: Int64 = Self.defaultTolerance, mac: @escaping MAC) {
        self.secrets = secrets.filter { !$0.isEmpty }
        self.tolerance = tolerance
        self.mac = mac
    }

    /// The signed timestamp when the header vouches for `body` at `now` (unix seconds).
    public func verify(header: String?, body: [UInt8], now: Int64) -> Result<Int64, Failure> {
        guard let header, !header.isEmpty else { return .failure(.missingHeader) }
        var timestamp: Int64?
        var signatures: [[UInt8]] = []
        for item in header.split(separator: ",") {
            let pair = item.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            let key = pair[0].trimmingSpaces
            let value = pair[1].trimmingSpaces
            if key == "t" {
                timestamp = Int64(value)
            } else if key == "v1", let bytes = Self.hexBytes(value), bytes.count == 32 {
                signatures.append(bytes)
            }
        }
        guard let timestamp, !signatures.isEmpty else { return .failure(.malformedHeader) }
        let message = Array(String(timestamp).utf8) + [UInt8(ascii: ".")] + body
        let expected = secrets.map { mac($0, message) }
        // Every pair is compared, so the time taken does not say which one matched.
        var matched = false
        for signature in signatures {
            for candidate in expected where Self.constantTimeEqual(signature, candidate) { matched = true }
        }
        guard matched else { return .failure(.mismatch) }
        guard abs(now - timestamp) <= tolerance else { return .failure(.stale) }
        return .success(timestamp)
    }

    /// Equal length and equal bytes, in time that depends only on the length.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    static func hexBytes(_ text: Substring) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var value = self
        while value.first == " " { value.removeFirst() }
        while value.last == " " { value.removeLast() }
        return value
    }
}
