import Foundation

/// Incremental parser of one HTTP/1.1 response at a time, fed the bytes as they arrive: finds the status, the
/// body's framing (`Content-Length`, chunked, or until close) and whether the server keeps the connection.
/// Bodies are skipped, not kept: the load generator only needs to know when an answer is complete.
struct ResponseParser {
    enum Outcome: Equatable {
        /// More bytes are needed.
        case incomplete
        /// A whole response: its status and whether the connection can carry the next request.
        case complete(status: Int, keepAlive: Bool)
        /// Bytes that are not an HTTP/1.1 response.
        case malformed
    }

    private enum State {
        case head
        case body(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case untilClose
    }

    private var state = State.head
    private var line: [UInt8] = []
    private var headLines: [[UInt8]] = []
    private var status = 0
    private var keepAlive = true

    /// The response is framed by the connection's end (no length, not chunked): complete once the peer closes.
    var endsAtClose: Bool {
        if case .untilClose = state { return true }
        return false
    }

    /// The status of a response framed by the connection's end, when the peer has closed.
    mutating func finishAtClose() -> Outcome {
        guard endsAtClose else { return .malformed }
        let outcome = Outcome.complete(status: status, keepAlive: false)
        reset()
        return outcome
    }

    /// Feeds `bytes`; returns how many were consumed and the outcome. Bytes after a complete response are left.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) -> (consumed: Int, outcome: Outcome) {
        var i = 0
        while i < bytes.count {
            switch state {
            case .body(let remaining):
                let take = min(remaining, bytes.count - i)
                i += take
                if take == remaining { return (i, finish()) }
                state = .body(remaining: remaining - take)
            case .chunkData(let remaining):
                let take = min(remaining, bytes.count - i)
                i += take
                state = take == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - take)
            case .untilClose:
                return (bytes.count, .incomplete)
            case .head, .chunkSize, .chunkDataEnd, .trailers:
                let byte = bytes[i]
                i += 1
                guard byte == UInt8(ascii: "\n") else {
                    guard line.count < 16_384 else { return (i, .malformed) }
                    if byte != UInt8(ascii: "\r") { line.append(byte) }
                    continue
                }
                let outcome = endOfLine()
                line.removeAll(keepingCapacity: true)
                if outcome != .incomplete { return (i, outcome) }
            }
        }
        return (i, .incomplete)
    }

    private mutating func endOfLine() -> Outcome {
        switch state {
        case .head:
            guard line.isEmpty else {
                headLines.append(line)
                return .incomplete
            }
            return endOfHead()
        case .chunkSize:
            let digits = line.prefix { $0 != UInt8(ascii: ";") }
            guard !digits.isEmpty, digits.count <= 8, let size = Int(String(decoding: digits, as: UTF8.self), radix: 16)
            else { return .malformed }
            state = size == 0 ? .trailers : .chunkData(remaining: size)
        case .chunkDataEnd:
            guard line.isEmpty else { return .malformed }
            state = .chunkSize
        case .trailers:
            if line.isEmpty { return finish() }
        case .body, .chunkData, .untilClose:
            break
        }
        return .incomplete
    }

    private mutating func endOfHead() -> Outcome {
        guard let statusLine = headLines.first, statusLine.starts(with: Array("HTTP/1.".utf8)), statusLine.count >= 12,
            let code = Int(String(decoding: statusLine[9..<12], as: UTF8.self)), (100...599).contains(code)
        else { return .malformed }
        var length: Int?
        var chunked = false
        keepAlive = statusLine[7] == UInt8(ascii: "1")
        for header in headLines.dropFirst() {
            guard let colon = header.firstIndex(of: UInt8(ascii: ":")) else { return .malformed }
            let name = String(decoding: header[..<colon], as: UTF8.self).lowercased()
            let value = String(decoding: header[(colon + 1)...], as: UTF8.self)
                .trimmingCharacters(in: .whitespaces).lowercased()
            switch name {
            case "content-length":
                guard value.count <= 12, let n = Int(value), n >= 0 else { return .malformed }
                length = n
            case "transfer-encoding": chunked = value.hasSuffix("chunked")
            case "connection": keepAlive = keepAlive ? value != "close" : value == "keep-alive"
            default: break
            }
        }
        headLines.removeAll(keepingCapacity: true)
        status = code
        if code < 200 {  // an interim answer; the real one follows
            state = .head
            return .incomplete
        }
        if code == 204 || code == 304 { return finish() }
        if chunked {
            state = .chunkSize
        } else if let length {
            if length == 0 { return finish() }
            state = .body(remaining: length)
        } else {
            state = .untilClose
            keepAlive = false
        }
        return .incomplete
    }

    private mutating func finish() -> Outcome {
        let outcome = Outcome.complete(status: status, keepAlive: keepAlive)
        reset()
        return outcome
    }

    private mutating func reset() {
        state = .head
        line.removeAll(keepingCapacity: true)
        headLines.removeAll(keepingCapacity: true)
        status = 0
        keepAlive = true
    }
}
