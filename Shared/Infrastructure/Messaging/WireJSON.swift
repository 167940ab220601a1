import FoundationEssentials

/// JSON for Kafka payloads: Foundation's `JSONEncoder` output with `.withoutEscapingSlashes` (object keys in encode
/// order), written by `StreamingJSONEncoder` at a fraction of the cost. A value that encoder does not handle, or
/// whose encoding throws, is encoded again by Foundation, so the result and any error are Foundation's.
public enum WireJSON {
    public static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        if let bytes = try? StreamingJSONEncoder.encode(value) { return bytes }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }
}
