import FoundationEssentials
import HTTPServer
import Runtime

/// Decodes a route's JSON body; anything unparseable or of the wrong shape is a 400 with the route's message
/// (the original answered 500 to unparseable JSON; we answer 400).
enum JSONBody {
    static func decode<T: Decodable>(_ type: T.Type, from request: HTTPRequest, error message: String) -> Result<
        T, HTTPResponse
    > {
        guard let value = strict(T.self, from: request.body) else { return .failure(.error(400, message)) }
        return .success(value)
    }

    /// `bytes` decoded as `T` when they are one RFC 8259 JSON text (Foundation alone also takes trailing commas).
    static func strict<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) -> T? {
        guard StrictJSON.isValid(bytes) else { return nil }
        return try? JSONDecoder().decode(T.self, from: Data(bytes))
    }

    /// Why a body that is not multipart is refused before any route sees it: it is not UTF-8, or it holds a NUL
    /// character, raw or as the JSON escape `\u0000` (no route stores one, and Postgres cannot). Multipart bodies
    /// carry binary parts; their text fields are checked by the form that reads them.
    static func textProblem(_ request: HTTPRequest) -> String? {
        guard !request.body.isEmpty else { return nil }
        if let type = request.head.headers["Content-Type"], type.lowercased().hasPrefix("multipart/") { return nil }
        guard RequestHeadCheck.isCleanText(request.body) else {
            return "request body must be UTF-8 without NUL characters"
        }
        return containsEscapedNUL(request.body) ? "request body must not contain NUL characters" : nil
    }

    /// True when the JSON text holds `\u0000`. Outside strings a valid JSON text has no backslash, and inside them
    /// every escape is a backslash and its next character, so skipping pairs finds exactly the escaped NULs.
    static func containsEscapedNUL(_ bytes: [UInt8]) -> Bool {
        var i = 0
        let zero = UInt8(ascii: "0")
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "\\") else {
                i += 1
                continue
            }
            if i + 5 < bytes.count, bytes[i + 1] == UInt8(ascii: "u"), bytes[i + 2] == zero, bytes[i + 3] == zero,
                bytes[i + 4] == zero, bytes[i + 5] == zero
            {
                return true
            }
            i += 2
        }
        return false
    }
}
