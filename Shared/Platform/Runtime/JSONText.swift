import Foundation

/// Small JSON text helpers for hand-written output paths (logs, metrics), where `JSONEncoder` is too heavy.
public enum JSONText {
    /// `s` as a JSON string literal, with quotes.
    public static func quote(_ s: String) -> String {
        var out = "\""
        out.reserveCapacity(s.utf8.count + 2)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out +=
                    "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
        return out
    }

    /// The flat error body every failure answers with: `{"error":"<message>"}`.
    public static func errorBody(_ message: String) -> [UInt8] {
        Array("{\"error\":\(quote(message))}".utf8)
    }
}

/// ISO-8601 timestamps in the contract's form: UTC, millisecond precision, `Z`.
public enum Timestamp {
    /// ±10^15 ms, about ±31,000 years: past it, dates are formatted as the bound.
    static let maxMillis = 1_000_000_000_000_000

    public static func iso8601(_ date: Date) -> String {
        // Range-checked before the conversion: a date built from outside data (a token's `exp`) cannot trap here.
        let ms = Int64((date.timeIntervalSince1970 * 1000).rounded(.down).clampedInt(-maxMillis...maxMillis) ?? 0)
        var secs = ms / 1000
        var millis = Int(ms % 1000)
        if millis < 0 {
            millis += 1000
            secs -= 1
        }
        var t = time_t(secs)
        var parts = tm()
        gmtime_r(&t, &parts)
        // Hand-formatted straight into the string's storage: this runs on hot paths (every log line, every health
        // check), where a buffer per field cost more than the formatting.
        return String(unsafeUninitializedCapacity: 24) { out in
            var end = 0
            func digits(_ value: Int, _ width: Int) {
                var v = value
                for i in stride(from: end + width - 1, through: end, by: -1) {
                    out[i] = UInt8(48 + v % 10)
                    v /= 10
                }
                end += width
            }
            func byte(_ b: UInt8) {
                out[end] = b
                end += 1
            }
            digits(Int(parts.tm_year) + 1900, 4)
            byte(45)
            digits(Int(parts.tm_mon) + 1, 2)
            byte(45)
            digits(Int(parts.tm_mday), 2)
            byte(84)
            digits(Int(parts.tm_hour), 2)
            byte(58)
            digits(Int(parts.tm_min), 2)
            byte(58)
            digits(Int(parts.tm_sec), 2)
            byte(46)
            digits(millis, 3)
            byte(90)
            return end
        }
    }

    /// Parses an RFC 3339 `date-time` (`RFC3339`), else ISO-8601 as Foundation reads it, with or without fractional
    /// seconds; nil for anything else. Every time the edge accepts (RFC 3339) therefore reads the same here.
    public static func parse(_ text: String) -> Date? {
        if let date = RFC3339.parse(text) { return date }
        if let date = try? Date(text, strategy: .iso8601) { return date }
        return try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)
    }

    /// Milliseconds since the Unix epoch.
    public static func nowMillis() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}

extension Duration {
    /// The duration in (fractional) milliseconds, for logs and benchmarks.
    public var inMilliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }

    /// The duration in (fractional) seconds.
    public var inSeconds: Double { inMilliseconds / 1000 }
}
