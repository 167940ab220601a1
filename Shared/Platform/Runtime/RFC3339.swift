import Foundation

/// RFC 3339 `date-time` (section 5.6), read by hand: Foundation's ISO 8601 reader refuses some valid times (years
/// before 1000, some offsets). Accepts `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` with `T` and `Z` in either case,
/// a day that exists in its month (proleptic Gregorian), hours 00–23, minutes and seconds 00–59 (a leap second `60`
/// is refused, as JSON Schema's `date-time` validators do; a `Date` cannot hold it) and offsets up to ±23:59.
/// Nothing else: no space for `T`, no offset without its colon, no missing seconds. Pure: no I/O, no locale.
public enum RFC3339 {
    /// The instant `text` names, or nil when it is not an RFC 3339 `date-time`.
    public static func parse(_ text: String) -> Date? {
        var reader = Reader(bytes: Array(text.utf8))
        guard let year = reader.digits(4), reader.skip(UInt8(ascii: "-")),
            let month = reader.digits(2), (1...12).contains(month), reader.skip(UInt8(ascii: "-")),
            let day = reader.digits(2), (1...daysIn(month: month, year: year)).contains(day),
            reader.skipEither(UInt8(ascii: "T"), UInt8(ascii: "t")),
            let hour = reader.digits(2), hour <= 23, reader.skip(UInt8(ascii: ":")),
            let minute = reader.digits(2), minute <= 59, reader.skip(UInt8(ascii: ":")),
            let second = reader.digits(2), second <= 59
        else { return nil }
        var fraction = 0.0
        if reader.skip(UInt8(ascii: ".")) {
            guard let value = reader.fraction() else { return nil }
            fraction = value
        }
        guard let offsetSeconds = reader.offset(), reader.atEnd else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the date (Howard Hinnant's `days_from_civil`), for years 0…9999.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// A cursor over the text's bytes.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index == bytes.count }

        mutating func skip(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func skipEither(_ a: UInt8, _ b: UInt8) -> Bool { skip(a) || skip(b) }

        /// Exactly `count` ASCII digits as a number.
        mutating func digits(_ count: Int) -> Int? {
            guard bytes.count - index >= count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += count
            return value
        }

        /// One or more digits after the point, as a fraction of a second (digits past the ninth are read, not kept).
        mutating func fraction() -> Double? {
            let start = index
            var value = 0.0
            var scale = 1.0
            while index < bytes.count, (48...57).contains(bytes[index]) {
                if index - start < 9 {
                    scale /= 10
                    value += Double(bytes[index] - 48) * scale
                }
                index += 1
            }
            return index > start ? value : nil
        }

        /// `Z`/`z` → 0, `±HH:MM` → its seconds east of UTC; nil for anything else.
        mutating func offset() -> Int? {
            if skipEither(UInt8(ascii: "Z"), UInt8(ascii: "z")) { return 0 }
            let sign: Int
            if skip(UInt8(ascii: "+")) {
                sign = 1
            } else if skip(UInt8(ascii: "-")) {
                sign = -1
            } else {
                return nil
            }
            guard let hours = digits(2), hours <= 23, skip(UInt8(ascii: ":")), let minutes = digits(2), minutes <= 59
            else { return nil }
            return sign * (hours * 3_600 + minutes * 60)
        }
    }
}
