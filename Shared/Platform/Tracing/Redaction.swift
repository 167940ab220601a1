/// The tracer's redaction rule, applied to every span before it leaves the process, so no call site has to
/// remember it: an attribute whose key names a secret or a person's data is dropped, and every remaining text
/// (span name, string values, event and status text) loses query strings, bearer credentials, e-mail addresses,
/// Expo push tokens, opaque ids and digit codes.
///
/// Dropped keys: any dot/underscore segment in `sensitiveSegments` (`authorization`, `token`, `code`, `email`,
/// `title`, `body`, `envelope`, `delivery`, `photo`, `query`, …) except the status codes of the semantic conventions.
public enum Redaction {
    public static let placeholder = "[redacted]"

    static let sensitiveSegments: Set<Substring> = [
        "authorization", "auth", "bearer", "token", "tokens", "code", "codes", "email", "emails", "password",
        "secret", "title", "body", "envelope", "delivery", "receipt", "ticket", "photo", "image", "cookie", "query",
        "key", "phone",
    ]

    /// `sensitiveSegments` as bytes, by length (index = length), for the byte-level key check.
    private static let sensitiveSegmentBytes: [[[UInt8]]] = (0...13).map { length in
        sensitiveSegments.filter { $0.utf8.count == length }.map { Array($0.utf8) }
    }

    /// Whether an attribute with this key may be exported at all (ASCII case-insensitive, by segment); the
    /// conventions' `http.response.status_code` and `error.type` always may.
    public static func allows(key: String) -> Bool {
        if key == "http.response.status_code" || key == "error.type" { return true }
        var key = key
        return key.withUTF8 { bytes in
            var start = 0
            for index in 0...bytes.count
            where index == bytes.count || bytes[index] == 0x2E || bytes[index] == 0x5F || bytes[index] == 0x2D {
                if isSensitiveSegment(UnsafeBufferPointer(rebasing: bytes[start..<index])) { return false }
                start = index + 1
            }
            return true
        }
    }

    private static func isSensitiveSegment(_ segment: UnsafeBufferPointer<UInt8>) -> Bool {
        guard (3...13).contains(segment.count) else { return false }
        return sensitiveSegmentBytes[segment.count].contains { word in
            zip(word, segment).allSatisfy { $0 == asciiLowercase($1) }
        }
    }

    private static func asciiLowercase(_ b: UInt8) -> UInt8 { (0x41...0x5A).contains(b) ? b | 0x20 : b }

    /// What the rule already decided about an attribute: nothing, its key's verdict (a key constant,
    /// `AttributeKey`), or everything (a template's attribute, `SpanTemplate`, kept and scrubbed when it was made).
    enum Vetting: UInt8, Sendable {
        case none
        case keyAllowed
        case keyDenied
        case clean
    }

    /// The attributes that may be exported, their text scrubbed; and how many were dropped. When nothing is dropped
    /// or changed (nearly every span) the same array comes back, without a copy. What an attribute's vetting
    /// already decided is not decided again.
    public static func apply(_ attributes: [Attribute]) -> (kept: [Attribute], dropped: Int) {
        var kept: [Attribute]?  // built from the first attribute that is dropped or changed on
        for index in attributes.indices {
            let attribute = attributes[index]
            var replacement: Attribute? = attribute
            if attribute.vetting == .clean {
                if kept == nil { continue }
            } else if attribute.vetting == .keyDenied
                || (attribute.vetting == .none && !allows(key: attribute.key))
            {
                replacement = nil
            } else if case .string(let text) = attribute.value, let scrubbed = scrubbedIfChanged(text) {
                replacement = Attribute(attribute.key, .string(scrubbed))
            } else if kept == nil {
                continue
            }
            if kept == nil {
                kept = Array(attributes[..<index])
                kept?.reserveCapacity(attributes.count)
            }
            if let replacement { kept?.append(replacement) }
        }
        guard let kept else { return (attributes, 0) }
        return (kept, attributes.count - kept.count)
    }

    /// `apply`, its result marked clean: attributes made once (a template's, a table's) that no span's end decides
    /// again.
    public static func vetted(_ attributes: [Attribute]) -> (kept: [Attribute], dropped: Int) {
        let (kept, dropped) = apply(attributes)
        return (kept.map { Attribute($0.key, $0.value, vetting: .clean) }, dropped)
    }

    /// `text` with every forbidden value replaced by `placeholder`: a query string (after `?`) goes whole. Text with
    /// nothing to replace (nearly every span name and value) is returned as is after one pass over its bytes.
    public static func scrub(_ text: String) -> String { scrubbedIfChanged(text) ?? text }

    /// `scrub(text)` when that differs from `text`, else nil.
    static func scrubbedIfChanged(_ text: String) -> String? {
        guard RedactionScan.mayNeedScrubbing(text) else { return nil }
        var base = Substring(text)
        var changed = false
        if let question = base.firstIndex(of: "?") {
            base = base[..<question]
            changed = true
        }
        guard base.utf8.contains(where: { !isPlainByte($0) }) || base.utf8.count >= 6 else {
            return changed ? String(base) + "?" + placeholder : nil
        }
        var out = ""
        out.reserveCapacity(base.utf8.count)
        var previousWasBearer = false
        for (index, word) in base.split(separator: " ", omittingEmptySubsequences: false).enumerated() {
            if index > 0 { out += " " }
            if previousWasBearer || isSensitiveWord(word) {
                out += placeholder
                changed = true
            } else {
                out += word
            }
            previousWasBearer = word.lowercased() == "bearer"
        }
        if base.endIndex != text.endIndex { out += "?" + placeholder }
        return changed ? out : nil
    }

    private static func isPlainByte(_ b: UInt8) -> Bool {
        (0x61...0x7A).contains(b) || (0x41...0x5A).contains(b) || b == 0x2F || b == 0x2E || b == 0x20
    }

    /// A whitespace-free word that is a secret or a person's data by its shape.
    static func isSensitiveWord(_ word: Substring) -> Bool {
        let core = word.trimmingCharacters(from: "\"'(),;:<>[]{}")
        guard !core.isEmpty else { return false }
        if core.contains("@"), let at = core.firstIndex(of: "@"), core[core.index(after: at)...].contains(".") {
            return true
        }
        if core.hasPrefix("ExponentPushToken") || core.hasPrefix("ExpoPushToken") { return true }
        let utf8 = core.utf8
        let digits = utf8.filter { (0x30...0x39).contains($0) }.count
        // A sign-in code or similar: 4 to 8 digits standing alone.
        if digits == utf8.count, (4...8).contains(digits) { return true }
        // An opaque id or credential: a UUID, or a run of 16+ letters and digits mixing both (a key, a token's
        // body); names made of words and short numbers (`mapvest.gateway.replies.host-3001.v1`) stay.
        return isUUID(utf8)
            || core.split(whereSeparator: { !$0.isASCII || !($0.isLetter || $0.isNumber) })
                .contains { run in
                    let digits = run.utf8.filter { (0x30...0x39).contains($0) }.count
                    return run.utf8.count >= 16 && digits >= 2 && run.utf8.count - digits >= 2
                }
    }

    /// Eight, four, four, four and twelve hex digits joined by dashes, anywhere in the word.
    private static func isUUID(_ utf8: Substring.UTF8View) -> Bool {
        let bytes = Array(utf8)
        guard bytes.count >= 36 else { return false }
        let dashes: Set<Int> = [8, 13, 18, 23]
        return (0...(bytes.count - 36)).contains { start in
            (0..<36).allSatisfy { i in
                let b = bytes[start + i]
                return dashes.contains(i)
                    ? b == 0x2D : (0x30...0x39).contains(b) || (0x61...0x66).contains(b | 0x20)
            }
        }
    }
}

extension Substring {
    fileprivate func trimmingCharacters(from set: String) -> Substring {
        var s = self
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return s
    }
}
