import Foundation

/// One part of a `multipart/form-data` body (RFC 7578).
public struct MultipartPart: Sendable {
    public var name: String
    public var filename: String?
    public var contentType: String?
    public var data: [UInt8]

    public init(name: String, filename: String? = nil, contentType: String? = nil, data: [UInt8]) {
        self.name = name
        self.filename = filename
        self.contentType = contentType
        self.data = data
    }
}

/// A body that is not valid `multipart/form-data`. `reason` is for logs; clients get a generic message.
public struct MultipartError: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { "invalid multipart body: \(reason)" }
}

/// `multipart/form-data` parsing (RFC 7578, RFC 2046 §5.1) over a body already in memory.
public enum Multipart {
    /// At most this many parts are accepted.
    public static let maxParts = 64
    /// At most this many bytes of headers per part.
    static let maxPartHeaderBytes = 8 << 10

    /// The boundary of a `multipart/form-data` content type, or nil when the type is another one or the
    /// boundary is missing or invalid (1–70 characters).
    public static func boundary(fromContentType contentType: String) -> String? {
        let parameters = HeaderParameters(contentType)
        guard parameters.value.lowercased() == "multipart/form-data",
            let boundary = parameters["boundary"], (1...70).contains(boundary.utf8.count),
            boundary.utf8.allSatisfy({ $0 >= 32 && $0 < 127 })
        else { return nil }
        return boundary
    }

    /// The parts of `body`, in order. Throws on a missing first or final delimiter, malformed part headers,
    /// a part without `Content-Disposition: form-data; name=…`, or more than `maxParts` parts.
    public static func parse(_ body: [UInt8], boundary: String) throws(MultipartError) -> [MultipartPart] {
        guard !boundary.isEmpty else { throw MultipartError("empty boundary") }
        let dashBoundary = Array("--\(boundary)".utf8)
        let delimiter = [13, 10] + dashBoundary  // CRLF "--" boundary
        var parts: [MultipartPart] = []

        return try body.withUnsafeBufferPointer { (buffer) throws(MultipartError) -> [MultipartPart] in
            // The first delimiter may sit at the very start (no CRLF before it) or after a preamble.
            var position: Int
            if buffer.starts(with: dashBoundary) {
                position = dashBoundary.count
            } else if let found = find(delimiter, in: buffer, from: 0) {
                position = found + delimiter.count
            } else {
                throw MultipartError("no opening delimiter")
            }

            while true {
                // After a delimiter: "--" closes; otherwise optional whitespace then CRLF opens a part.
                if position + 2 <= buffer.count, buffer[position] == 45, buffer[position + 1] == 45 {
                    return parts
                }
                while position < buffer.count, buffer[position] == 32 || buffer[position] == 9 { position += 1 }
                guard position + 2 <= buffer.count, buffer[position] == 13, buffer[position + 1] == 10 else {
                    throw MultipartError("malformed delimiter line")
                }
                position += 2
                guard parts.count < maxParts else { throw MultipartError("too many parts") }

                // Part headers end at the first empty line.
                guard
                    let headerEnd = find(
                        [13, 10, 13, 10], in: buffer, from: position - 2,
                        limit: maxPartHeaderBytes + 4)
                else { throw MultipartError("unterminated part headers") }
                let headerBytes = headerEnd > position ? Array(buffer[position..<headerEnd]) : []
                let headers = try parseHeaders(headerBytes)
                let dataStart = headerEnd + 4

                guard let dataEnd = find(delimiter, in: buffer, from: dataStart) else {
                    throw MultipartError("missing closing delimiter")
                }
                guard let disposition = headers["Content-Disposition"] else {
                    throw MultipartError("part without Content-Disposition")
                }
                let parameters = HeaderParameters(disposition)
                guard parameters.value.lowercased() == "form-data", let name = parameters["name"] else {
                    throw MultipartError("part without form-data name")
                }
                parts.append(
                    MultipartPart(
                        name: name, filename: parameters["filename"], contentType: headers["Content-Type"],
                        data: Array(buffer[dataStart..<dataEnd])))
                position = dataEnd + delimiter.count
            }
        }
    }

    /// Part headers: `Name: value` lines separated by CRLF (an empty block is allowed).
    private static func parseHeaders(_ bytes: [UInt8]) throws(MultipartError) -> HTTPHeaders {
        var headers = HTTPHeaders()
        guard !bytes.isEmpty else { return headers }
        guard RequestHeadCheck.isCleanText(bytes), let text = String(validating: bytes, as: UTF8.self) else {
            throw MultipartError("part headers not UTF-8 or holding NUL")
        }
        for line in text.split(separator: "\r\n", omittingEmptySubsequences: false) {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw MultipartError("malformed part header")
            }
            let name = line[..<colon]
            guard name.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else { throw MultipartError("malformed part header") }
            let value = String(line[line.index(after: colon)...]).trimmingASCIISpaces()
            headers.add(String(name), String(value))
        }
        return headers
    }

    /// The first index of `needle` in `haystack` at or after `start`, looking at most `limit` bytes: `memchr` finds
    /// each candidate first byte (a photo part is kilobytes, scanned a word at a time), `memcmp` checks the rest.
    private static func find(
        _ needle: [UInt8], in haystack: UnsafeBufferPointer<UInt8>, from start: Int, limit: Int = .max
    ) -> Int? {
        guard let first = needle.first, start >= 0, let base = haystack.baseAddress else { return nil }
        let last = min(haystack.count - needle.count, limit == .max ? .max : start + limit - needle.count)
        guard start <= last else { return nil }
        return needle.withUnsafeBufferPointer { pattern -> Int? in
            guard let patternBase = pattern.baseAddress else { return nil }
            var i = start
            while i <= last {
                guard let hit = memchr(base + i, Int32(first), last - i + 1) else { return nil }
                let index = i + UnsafeRawPointer(base + i).distance(to: UnsafeRawPointer(hit))
                if memcmp(hit, patternBase, pattern.count) == 0 { return index }
                i = index + 1
            }
            return nil
        }
    }
}

/// A header value with `; key=value` parameters (quoted strings unescaped, keys case-insensitive).
struct HeaderParameters {
    let value: String
    private var parameters: [(String, String)] = []

    init(_ header: String) {
        var scalars = Substring(header)
        let end = scalars.firstIndex(of: ";") ?? scalars.endIndex
        value = String(scalars[..<end]).trimmingASCIISpaces().description
        scalars = scalars[end...]
        while !scalars.isEmpty {
            scalars.removeFirst()  // ";"
            while let c = scalars.first, c == " " || c == "\t" { scalars.removeFirst() }
            guard let eq = scalars.firstIndex(where: { $0 == "=" || $0 == ";" }), scalars[eq] == "=" else {
                scalars = scalars[(scalars.firstIndex(of: ";") ?? scalars.endIndex)...]
                continue
            }
            let key = String(scalars[..<eq]).trimmingASCIISpaces().lowercased()
            scalars = scalars[scalars.index(after: eq)...]
            var parsed = ""
            if scalars.first == "\"" {
                scalars.removeFirst()
                while let c = scalars.first {
                    scalars.removeFirst()
                    if c == "\"" { break }
                    if c == "\\", let escaped = scalars.first {
                        scalars.removeFirst()
                        parsed.append(escaped)
                    } else {
                        parsed.append(c)
                    }
                }
                scalars = scalars[(scalars.firstIndex(of: ";") ?? scalars.endIndex)...]
            } else {
                let stop = scalars.firstIndex(of: ";") ?? scalars.endIndex
                parsed = String(scalars[..<stop]).trimmingASCIISpaces().description
                scalars = scalars[stop...]
            }
            parameters.append((key, parsed))
        }
    }

    subscript(key: String) -> String? {
        let k = key.lowercased()
        return parameters.first { $0.0 == k }?.1
    }
}
