import Foundation

/// A SQL statement whose string interpolations become `$n` bind parameters, so values can never change the SQL.
///
///     let q: PostgresQuery = "SELECT * FROM t WHERE id = \(id) AND n > \(n)"
///     // q.sql == "SELECT * FROM t WHERE id = $1 AND n > $2", q.binds holds id and n
///
/// Supported values: `String`, `Int`, `Int64`, `Int32`, `Double`, `Bool`, `Date` (timestamptz), `PostgresJSON`
/// (jsonb), `[UInt8]` (bytea), `[String]` (text[]), and optionals of all of these (nil binds NULL).
/// `Int` binds as int8 (use `Int32` for functions that only take int4); `String` lets the server infer its type,
/// so it also fills uuid, enum and varchar parameters.
/// `\(unescaped: "schema_name")` splices text into the SQL itself: only for identifiers written in code.
public struct PostgresQuery: ExpressibleByStringInterpolation, Sendable {
    public var sql: String
    public var binds: [PostgresBind]

    /// SQL with explicit binds for `$1...$n`. The SQL must come from code, never from input.
    public init(unsafeSQL sql: String, binds: [PostgresBind] = []) {
        self.sql = sql
        self.binds = binds
    }

    public init(stringLiteral value: String) {
        self.init(unsafeSQL: value)
    }

    public init(stringInterpolation: StringInterpolation) {
        self.init(unsafeSQL: stringInterpolation.sql, binds: stringInterpolation.binds)
    }

    /// Builds the SQL text and its binds.
    public struct StringInterpolation: StringInterpolationProtocol, Sendable {
        public var sql: String
        public var binds: [PostgresBind]

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql = ""
            sql.reserveCapacity(literalCapacity + interpolationCount * 3)
            binds = []
            binds.reserveCapacity(interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) { sql += literal }

        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value) {
            append(value.postgresBind)
        }

        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value?) {
            append(value?.postgresBind ?? PostgresBind(null: Value.postgresTypeOID))
        }

        /// bytea, sent in binary form.
        public mutating func appendInterpolation(_ value: [UInt8]) {
            append(PostgresBind(value: .binary(value), typeOID: PostgresBind.OID.bytea))
        }

        public mutating func appendInterpolation(_ value: [UInt8]?) {
            append(
                value.map { PostgresBind(value: .binary($0), typeOID: PostgresBind.OID.bytea) }
                    ?? PostgresBind(null: PostgresBind.OID.bytea))
        }

        /// text[]
        public mutating func appendInterpolation(_ value: [String]) {
            append(PostgresBind(value: .text(PostgresBind.arrayLiteral(value)), typeOID: PostgresBind.OID.textArray))
        }

        public mutating func appendInterpolation(_ value: [String]?) {
            guard let value else { return append(PostgresBind(null: PostgresBind.OID.textArray)) }
            appendInterpolation(value)
        }

        /// Splices `text` into the SQL unchanged. Only for identifiers from code (schema or table names).
        public mutating func appendInterpolation(unescaped text: String) { sql += text }

        private mutating func append(_ bind: PostgresBind) {
            binds.append(bind)
            sql += "$\(binds.count)"
        }
    }
}

/// One bind parameter: its value (text form, binary for bytea, or NULL) and its type OID
/// (0 lets the server infer the type from context, which `String` uses so it can fill uuid, enum or varchar).
public struct PostgresBind: Sendable, Hashable {
    /// How the value travels: text input format, binary (bytea only), or NULL.
    public enum Value: Sendable, Hashable {
        case null
        case text(String)
        case binary([UInt8])
    }

    public var value: Value
    public var typeOID: UInt32

    public init(value: Value, typeOID: UInt32) {
        self.value = value
        self.typeOID = typeOID
    }

    public init(null typeOID: UInt32) {
        self.init(value: .null, typeOID: typeOID)
    }

    /// Type OIDs of the built-in types this module binds.
    public enum OID {
        public static let unspecified: UInt32 = 0
        public static let bool: UInt32 = 16
        public static let bytea: UInt32 = 17
        public static let int8: UInt32 = 20
        static let int4: UInt32 = 23
        public static let text: UInt32 = 25
        static let float8: UInt32 = 701
        static let textArray: UInt32 = 1009
        public static let timestamptz: UInt32 = 1184
        public static let jsonb: UInt32 = 3802
    }

    /// A one-dimensional array literal with every element quoted: `{"a","b \"c\""}`.
    static func arrayLiteral(_ values: [String]) -> String {
        var out = "{"
        for (i, value) in values.enumerated() {
            if i > 0 { out += "," }
            out += "\""
            for ch in value.unicodeScalars {
                if ch == "\"" || ch == "\\" { out += "\\" }
                out.unicodeScalars.append(ch)
            }
            out += "\""
        }
        return out + "}"
    }
}

/// A Swift value that binds as one Postgres parameter in text form.
public protocol PostgresEncodable: Sendable {
    /// The parameter's type OID (`PostgresBind.OID`); also used for NULLs of this type.
    static var postgresTypeOID: UInt32 { get }
    /// The value in Postgres text input format.
    var postgresText: String { get }
}

extension PostgresEncodable {
    public var postgresBind: PostgresBind { PostgresBind(value: .text(postgresText), typeOID: Self.postgresTypeOID) }
}

extension String: PostgresEncodable {
    public static var postgresTypeOID: UInt32 { PostgresBind.OID.unspecified }
    public var postgresText: String { self }
}

extension Int: PostgresEncodable {
    public static var postgresTypeOID: UInt32 { PostgresBind.OID.int8 }
    public var postgresText: String { String(self) }
}

extension Int64: PostgresEncodable {
    public static var postgresTypeOID: UInt32 { PostgresBind.OID.int8 }
    public var postgresText: String { String(self) }
}

extension Int32: PostgresEncodable {
    public static var postgresTypeOID: UInt32 { PostgresBind.OID.int4 }
    public var postgresText: String { String(self) }
}

extension Double: PostgresEncodable {
    public static var postgresTypeOID: UInt32 { PostgresBind.OID.float8 }
    public var postgresText: String {
        if isNaN { return "NaN" }
        if isInfinite { return self < 0 ? "-Infinity" : "Infinity" }
        return String(self)  // shortest text that reads back to the same Double
    }
}

extension Bool: PostgresEncodable {
    public static var postgresTypeOID: UInt32 { PostgresBind.OID.bool }
    public var postgresText: String { self ? "t" : "f" }
}

extension Date: PostgresEncodable {
    public static var postgresTypeOID: UInt32 { PostgresBind.OID.timestamptz }
    /// UTC with microseconds: `2024-05-01 12:30:00.123456+00`.
    public var postgresText: String { PostgresDateText.format(self) }
}

/// A JSON document bound as `jsonb` (the text must be valid JSON; the server checks it).
public struct PostgresJSON: PostgresEncodable, Hashable {
    public var text: String

    public init(_ text: String) {
        self.text = text
    }

    /// The JSON encoding of `value`.
    public init<T: Encodable>(encoding value: T, encoder: JSONEncoder = JSONEncoder()) throws {
        self.text = String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    public static var postgresTypeOID: UInt32 { PostgresBind.OID.jsonb }
    public var postgresText: String { text }
}
