/// What the server refuses from the request head alone, before any handler runs (the edge's input rules):
/// a NUL character or invalid UTF-8 in the target (raw or percent-decoded) or in a header value, and more query
/// fields than any client sends. Each refusal is a 400 with the flat `{"error": …}` body.
public enum RequestHeadCheck {
    /// More `&`-separated (non-empty) query fields than this is a 400.
    public static let maxQueryFields = 256

    /// Why the raw request target (`path?query` bytes as received) is refused, or nil when it is acceptable.
    public static func problem(target: [UInt8]) -> String? {
        let questionMark = target.firstIndex(of: UInt8(ascii: "?"))
        let query = questionMark.map { target[($0 + 1)...] } ?? []
        if fieldCount(query) > maxQueryFields { return "too many query parameters (max \(maxQueryFields))" }
        // Fast path (nearly every request): printable ASCII without escapes cannot hold a NUL or invalid UTF-8.
        if !target.contains(where: { $0 <= 32 || $0 >= 127 || $0 == UInt8(ascii: "%") }) { return nil }
        let path = target[..<(questionMark ?? target.endIndex)]
        guard isCleanText(QueryString.decodedBytes(path, plusAsSpace: false)) else {
            return "request path must be UTF-8 without NUL characters"
        }
        for field in query.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            guard isCleanText(QueryString.decodedBytes(field, plusAsSpace: true)) else {
                return "query parameters must be UTF-8 without NUL characters"
            }
        }
        return nil
    }

    /// The refusal for a header value that is not UTF-8 or holds a NUL character.
    public static let badHeader = "header values must be UTF-8 without NUL characters"

    /// True when `bytes` are valid UTF-8 without a NUL.
    public static func isCleanText<C: Collection<UInt8>>(_ bytes: C) -> Bool {
        !bytes.contains(0) && String(validating: bytes, as: UTF8.self) != nil
    }

    /// Non-empty `&`-separated fields, counted without splitting.
    private static func fieldCount(_ query: ArraySlice<UInt8>) -> Int {
        var count = 0
        var inField = false
        for byte in query {
            if byte == UInt8(ascii: "&") {
                inField = false
            } else if !inField {
                inField = true
                count += 1
            }
        }
        return count
    }
}
