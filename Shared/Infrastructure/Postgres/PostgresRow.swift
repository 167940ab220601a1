import Foundation

/// The column names of one result, shared by its rows.
final class PostgresColumns: Sendable {
    let names: [String]
    private let index: [String: Int]

    init(names: [String]) {
        self.names = names
        var index: [String: Int] = [:]
        for (i, name) in names.enumerated() where index[name] == nil { index[name] = i }
        self.index = index
    }

    func position(of name: String) -> Int? { index[name] }
}

/// One result row in text format. Accessors return nil for NULL, for an unknown column, or for text that does not
/// parse as the asked type. With duplicate column names the first one wins: alias them in the SQL.
public struct PostgresRow: Sendable {
    let columns: PostgresColumns
    let values: [String?]

    init(columns: PostgresColumns, values: [String?]) {
        self.columns = columns
        self.values = values
    }

    /// The result's column names, in order.
    public var columnNames: [String] { columns.names }

    /// Whether the result has this column.
    public func contains(_ column: String) -> Bool { columns.position(of: column) != nil }

    /// The value's text form (any type).
    public func string(_ column: String) -> String? {
        guard let i = columns.position(of: column), i < values.count else { return nil }
        return values[i]
    }

    /// int2/int4/int8 (or any integer text).
    public func int(_ column: String) -> Int? { string(column).flatMap { Int($0) } }

    public func int64(_ column: String) -> Int64? { string(column).flatMap { Int64($0) } }

    /// float4/float8/numeric, including `NaN` and `±Infinity`.
    public func double(_ column: String) -> Double? { string(column).flatMap { Double($0) } }

    public func bool(_ column: String) -> Bool? {
        switch string(column) {
        case "t", "true": true
        case "f", "false": false
        default: nil
        }
    }

    /// timestamptz (any session time zone), timestamp and date (read as UTC). `infinity` maps to `distantFuture`.
    public func date(_ column: String) -> Date? { string(column).flatMap(PostgresDateText.parse) }

    /// bytea in hex output format (`\x…`, the server default).
    public func bytes(_ column: String) -> [UInt8]? {
        guard let text = string(column) else { return nil }
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0 else {
            return nil
        }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: c - 48
            case 97...102: c - 87
            case 65...70: c - 55
            default: nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2 - 1)
        var i = 2
        while i < utf8.count {
            guard let high = nibble(utf8[i]), let low = nibble(utf8[i + 1]) else { return nil }
            out.append(high << 4 | low)
            i += 2
        }
        return out
    }

    /// A one-dimensional text[] (or other array) as strings; nil when NULL, not an array, or any element is NULL.
    public func stringArray(_ column: String) -> [String]? {
        string(column).flatMap(Self.parseArray)
    }

    /// True when the value is NULL or the column does not exist.
    public func isNull(_ column: String) -> Bool {
        guard let i = columns.position(of: column), i < values.count else { return true }
        return values[i] == nil
    }

    static func parseArray(_ text: String) -> [String]? {
        let scalars = Array(text.unicodeScalars)
        guard scalars.first == "{", scalars.last == "}" else { return nil }
        var out: [String] = []
        var i = 1
        let end = scalars.count - 1
        if i == end { return [] }
        while i < end {
            var element = ""
            if scalars[i] == "\"" {
                i += 1
                while i < end, scalars[i] != "\"" {
                    if scalars[i] == "\\", i + 1 < end { i += 1 }
                    element.unicodeScalars.append(scalars[i])
                    i += 1
                }
                guard i < end else { return nil }
                i += 1  // closing quote
            } else {
                while i < end, scalars[i] != "," {
                    if scalars[i] == "{" || scalars[i] == "\"" { return nil }  // nested or malformed
                    element.unicodeScalars.append(scalars[i])
                    i += 1
                }
                if element == "NULL" { return nil }
            }
            out.append(element)
            if i < end {
                guard scalars[i] == "," else { return nil }
                i += 1
                if i == end { return nil }
            }
        }
        return out
    }
}
