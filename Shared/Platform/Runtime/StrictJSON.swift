/// RFC 8259 JSON syntax, checked exactly: one value with optional whitespace around it; no trailing commas,
/// comments, single quotes, leading zeros, `NaN`/`Infinity`, raw control characters in strings or unknown escapes.
/// Foundation's decoder is more lenient (it accepts `[1,]`), so text from outside is checked here first.
public enum StrictJSON {
    /// Deeper nesting than this is refused (no client sends it; it bounds the checker's recursion).
    public static let maxDepth = 256

    /// True when `bytes` are one RFC 8259 JSON text.
    public static func isValid(_ bytes: [UInt8]) -> Bool {
        var scanner = Scanner(bytes)
        return scanner.document()
    }

    /// The exact text of member `key` of the top-level object (as sent, whitespace around it dropped), or nil when
    /// the text is not a valid JSON object or has no such member. With a repeated key, the last one (as decoders do).
    public static func memberText(_ bytes: [UInt8], _ key: String) -> ArraySlice<UInt8>? {
        var scanner = Scanner(bytes)
        scanner.watchedKey = Array(key.utf8)
        guard scanner.document() else { return nil }
        return scanner.watched.map { bytes[$0] }
    }

    private struct Scanner {
        let bytes: [UInt8]
        var i = 0
        var depth = 0
        var watchedKey: [UInt8]?
        var watched: Range<Int>?

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        mutating func document() -> Bool {
            skipSpace()
            guard value() else { return false }
            skipSpace()
            return i == bytes.count
        }

        private var current: UInt8? { i < bytes.count ? bytes[i] : nil }

        private mutating func skipSpace() {
            while let b = current, b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { i += 1 }
        }

        private mutating func literal(_ word: String) -> Bool {
            let text = Array(word.utf8)
            guard i + text.count <= bytes.count, bytes[i..<(i + text.count)].elementsEqual(text) else { return false }
            i += text.count
            return true
        }

        private mutating func value() -> Bool {
            switch current {
            case UInt8(ascii: "{"): return container(close: UInt8(ascii: "}"), keyed: true)
            case UInt8(ascii: "["): return container(close: UInt8(ascii: "]"), keyed: false)
            case UInt8(ascii: "\""): return string() != nil
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return number()
            }
        }

        /// An object or array; the opening bracket is current. Members of the top-level object named
        /// `watchedKey` have their value's range recorded.
        private mutating func container(close: UInt8, keyed: Bool) -> Bool {
            depth += 1
            guard depth <= StrictJSON.maxDepth else { return false }
            i += 1
            skipSpace()
            if current == close {
                i += 1
                depth -= 1
                return true
            }
            while true {
                var isWatched = false
                if keyed {
                    guard current == UInt8(ascii: "\""), let key = string() else { return false }
                    isWatched = depth == 1 && watchedKey.map { $0[...] == key } == true
                    skipSpace()
                    guard current == UInt8(ascii: ":") else { return false }
                    i += 1
                    skipSpace()
                }
                let start = i
                guard value() else { return false }
                if isWatched { watched = start..<i }
                skipSpace()
                if current == close {
                    i += 1
                    depth -= 1
                    return true
                }
                guard current == UInt8(ascii: ",") else { return false }
                i += 1
                skipSpace()
            }
        }

        /// A string; the opening quote is current. Returns its raw bytes between the quotes.
        private mutating func string() -> ArraySlice<UInt8>? {
            i += 1
            let start = i
            while let b = current {
                switch b {
                case UInt8(ascii: "\""):
                    i += 1
                    return bytes[start..<(i - 1)]
                case UInt8(ascii: "\\"):
                    i += 1
                    guard let e = current else { return nil }
                    if e == UInt8(ascii: "u") {
                        guard i + 4 < bytes.count, bytes[(i + 1)...(i + 4)].allSatisfy(Self.isHex) else { return nil }
                        i += 5
                    } else {
                        guard Array("\"\\/bfnrt".utf8).contains(e) else { return nil }
                        i += 1
                    }
                case 0..<0x20: return nil
                default: i += 1
                }
            }
            return nil
        }

        private mutating func number() -> Bool {
            if current == UInt8(ascii: "-") { i += 1 }
            guard let first = current, Self.isDigit(first) else { return false }
            i += 1
            if first != UInt8(ascii: "0") { digits() }
            if current == UInt8(ascii: ".") {
                i += 1
                guard digits() else { return false }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                i += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { i += 1 }
                guard digits() else { return false }
            }
            return true
        }

        /// Skips digits; true when there was at least one.
        @discardableResult
        private mutating func digits() -> Bool {
            let start = i
            while let b = current, Self.isDigit(b) { i += 1 }
            return i > start
        }

        private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        private static func isHex(_ b: UInt8) -> Bool { isDigit(b) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x66) }
    }
}
