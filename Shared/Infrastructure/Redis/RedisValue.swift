/// A Redis reply. Top-level error replies are thrown as `RedisError`; `.error` appears only nested (in arrays).
public enum RedisValue: Sendable, Equatable {
    case null
    case string([UInt8])
    case integer(Int64)
    case array([RedisValue])
    case status(String)
    case error(String)

    /// The bytes of a bulk string (or the text of a status).
    public var bytes: [UInt8]? {
        switch self {
        case .string(let bytes): bytes
        case .status(let text): Array(text.utf8)
        default: nil
        }
    }

    /// A bulk string or status as UTF-8 text.
    public var string: String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

    /// An integer reply, or a bulk string holding an integer.
    public var integer: Int64? {
        switch self {
        case .integer(let value): value
        case .string: string.flatMap { Int64($0) }
        default: nil
        }
    }

    public var array: [RedisValue]? {
        if case .array(let values) = self { return values }
        return nil
    }

    public var isNull: Bool { self == .null }
}
