import FoundationEssentials
import Runtime

/// A JSON value as JSON-RPC carries it. Integers stay integers (a request `id` of `7` comes back as `7`), other
/// numbers are doubles.
public enum MCPValue: Codable, Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([MCPValue])
    case object([String: MCPValue])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int64.self) {
            self = .int(i)
        } else if let d = try? c.decode(Double.self) {
            self = .double(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([MCPValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: MCPValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .int(let i): try c.encode(i)
        case .double(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    /// The member `key` of an object, or nil (also for non-objects).
    public subscript(key: String) -> MCPValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var object: [String: MCPValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    public var array: [MCPValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var isNull: Bool { self == .null }

    /// Parses JSON bytes; nil when they are not RFC 8259 JSON (invalid UTF-8 and trailing commas included).
    public static func parse(_ bytes: [UInt8]) -> MCPValue? {
        guard StrictJSON.isValid(bytes) else { return nil }
        return try? JSONDecoder().decode(MCPValue.self, from: Data(bytes))
    }

    /// Any `Encodable` as a JSON value (nil if it does not encode).
    public static func from<T: Encodable>(_ value: T) -> MCPValue? {
        guard let data = try? JSONEncoder().encode(value) else { return nil }
        return try? JSONDecoder().decode(MCPValue.self, from: data)
    }

    /// Compact JSON text, slashes unescaped.
    public var jsonBytes: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return (try? encoder.encode(self)).map { Array($0) } ?? Array("null".utf8)
    }

    public var jsonText: String { String(decoding: jsonBytes, as: UTF8.self) }
}

extension MCPValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(arrayLiteral elements: MCPValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, MCPValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
