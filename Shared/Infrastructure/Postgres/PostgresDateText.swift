import Foundation

/// Conversions between `Date` and Postgres ISO text (`DateStyle=ISO`, which every connection ensures).
enum PostgresDateText {
    /// UTC text with microseconds, for binding: `2024-05-01 12:30:00.123456+00` (years before 1 get ` BC`).
    static func format(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 1e14 else { return seconds < 0 ? "-infinity" : "infinity" }
        let totalMicros = Int64((seconds * 1_000_000).rounded())
        let secs = floorDiv(totalMicros, 1_000_000)
        let micros = totalMicros - secs * 1_000_000
        let days = floorDiv(secs, 86_400)
        let secondOfDay = secs - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        let bc = year <= 0
        var out = pad(bc ? 1 - year : year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + " "
        out += pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        out += "." + pad(micros, 6) + "+00"
        return bc ? out + " BC" : out
    }

    /// Parses `YYYY-MM-DD[( |T)HH:MM:SS[.f…][(+|-)HH[:MM[:SS]]|Z]][ BC]`, `infinity` and `-infinity`.
    /// A value without an offset (timestamp, date) is read as UTC.
    static func parse(_ text: String) -> Date? {
        if text == "infinity" { return .distantFuture }
        if text == "-infinity" { return .distantPast }
        var bytes = Array(text.utf8)
        var bc = false
        if bytes.count > 3, bytes.suffix(3) == Array(" BC".utf8) {
            bc = true
            bytes.removeLast(3)
        }
        var i = 0
        func number(maxDigits: Int) -> Int64? {
            var value: Int64 = 0
            let start = i
            while i < bytes.count, i - start < maxDigits, (48...57).contains(bytes[i]) {
                value = value * 10 + Int64(bytes[i] - 48)
                i += 1
            }
            return i > start ? value : nil
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < bytes.count, bytes[i] == c else { return false }
            i += 1
            return true
        }
        guard var year = number(maxDigits: 7), expect(UInt8(ascii: "-")), let month = number(maxDigits: 2),
            expect(UInt8(ascii: "-")), let day = number(maxDigits: 2), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        if bc { year = 1 - year }
        var seconds = days(fromCivil: year, month, day) * 86_400
        var fraction = 0.0
        if i < bytes.count {
            guard expect(UInt8(ascii: " ")) || expect(UInt8(ascii: "T")), let hour = number(maxDigits: 2),
                expect(UInt8(ascii: ":")), let minute = number(maxDigits: 2), expect(UInt8(ascii: ":")),
                let second = number(maxDigits: 2), hour <= 24, minute < 60, second <= 60
            else { return nil }
            seconds += hour * 3600 + minute * 60 + second
            if expect(UInt8(ascii: ".")) {
                let start = i
                guard let digits = number(maxDigits: 9) else { return nil }
                fraction = Double(digits) / pow(10, Double(i - start))
            }
            if expect(UInt8(ascii: "Z")) {
                // UTC
            } else if i < bytes.count {
                let sign: Int64
                if expect(UInt8(ascii: "+")) {
                    sign = 1
                } else if expect(UInt8(ascii: "-")) {
                    sign = -1
                } else {
                    return nil
                }
                guard let offsetHours = number(maxDigits: 2) else { return nil }
                var offset = offsetHours * 3600
                if expect(UInt8(ascii: ":")) {
                    guard let offsetMinutes = number(maxDigits: 2) else { return nil }
                    offset += offsetMinutes * 60
                    if expect(UInt8(ascii: ":")) {
                        guard let offsetSeconds = number(maxDigits: 2) else { return nil }
                        offset += offsetSeconds
                    }
                }
                seconds -= sign * offset
            }
        }
        guard i == bytes.count else { return nil }
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let s = String(value)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
