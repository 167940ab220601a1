/// Compact JSON text with each object's members sorted by their key's raw bytes, every other byte as it was: two
/// encodings are equal under it when they differ at most in key order (Foundation's `JSONEncoder` on Linux writes
/// keys in hash order, which changes from process to process). Nil when `bytes` is not compact JSON.
enum CanonicalJSON {
    static func of(_ bytes: [UInt8]) -> [UInt8]? {
        var parser = Parser(bytes: bytes)
        guard let value = parser.value(), parser.at == bytes.count else { return nil }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var at = 0

        mutating func value() -> [UInt8]? {
            guard at < bytes.count else { return nil }
            switch bytes[at] {
            case 0x7B: return object()
            case 0x5B: return array()
            case 0x22: return string()
            default: return scalar()
            }
        }

        private mutating func object() -> [UInt8]? {
            at += 1
            var members: [(key: [UInt8], value: [UInt8])] = []
            if peek(0x7D) { return Array("{}".utf8) }
            repeat {
                guard let key = string(), peek(0x3A), let value = value() else { return nil }
                members.append((key, value))
            } while peek(0x2C)
            guard peek(0x7D) else { return nil }
            let sorted = members.sorted { $0.key.lexicographicallyPrecedes($1.key) }
            return [0x7B] + Array(sorted.map { $0.key + [0x3A] + $0.value }.joined(separator: [0x2C])) + [0x7D]
        }

        private mutating func array() -> [UInt8]? {
            at += 1
            if peek(0x5D) { return Array("[]".utf8) }
            var elements: [[UInt8]] = []
            repeat {
                guard let element = value() else { return nil }
                elements.append(element)
            } while peek(0x2C)
            guard peek(0x5D) else { return nil }
            return [0x5B] + Array(elements.joined(separator: [0x2C])) + [0x5D]
        }

        /// The literal as written, escapes included.
        private mutating func string() -> [UInt8]? {
            guard at < bytes.count, bytes[at] == 0x22 else { return nil }
            let start = at
            at += 1
            while at < bytes.count, bytes[at] != 0x22 {
                at += bytes[at] == 0x5C ? 2 : 1
            }
            guard at < bytes.count else { return nil }
            at += 1
            return Array(bytes[start..<at])
        }

        /// A number, `true`, `false` or `null`, as written.
        private mutating func scalar() -> [UInt8]? {
            let start = at
            while at < bytes.count, ![0x2C, 0x5D, 0x7D].contains(bytes[at]) { at += 1 }
            return at > start ? Array(bytes[start..<at]) : nil
        }

        private mutating func peek(_ byte: UInt8) -> Bool {
            guard at < bytes.count, bytes[at] == byte else { return false }
            at += 1
            return true
        }
    }
}
