import Foundation
import Synchronization

/// Runs blocking work on a fresh thread so tests never block the cooperative pool the server's handlers need.
public func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

public struct RawError: Error, CustomStringConvertible {
    public let description: String
}

/// A parsed HTTP/1.1 response read from a raw socket.
public struct RawResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// A plain TCP connection to 127.0.0.1 for byte-exact HTTP tests (keep-alive, partial bodies, chunking).
public final class RawConnection: @unchecked Sendable {
    private let descriptor: Atomic<Int32>
    private let buffer = Mutex<[UInt8]>([])

    private init(fd: Int32) { self.descriptor = Atomic(fd) }

    private var fd: Int32 { descriptor.load(ordering: .acquiring) }

    public static func connect(port: Int, receiveTimeout: Duration = .seconds(5)) async throws -> RawConnection {
        try await offPool {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw RawError(description: "socket failed") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port)).bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard rc == 0 else {
                Foundation.close(fd)
                throw RawError(description: "connect failed: errno \(errno)")
            }
            let c = receiveTimeout.components
            var tv = timeval(tv_sec: Int(c.seconds), tv_usec: Int(c.attoseconds / 1_000_000_000_000))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            return RawConnection(fd: fd)
        }
    }

    public func send(_ text: String) async throws { try await send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) async throws {
        let fd = self.fd
        try await offPool {
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes {
                    Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                guard n > 0 else { throw RawError(description: "send failed: errno \(errno)") }
                offset += n
            }
        }
    }

    /// Reads one response (status line, headers, `Content-Length` body). Throws on timeout or close.
    public func readResponse() async throws -> RawResponse {
        try await offPool { [self] in
            let headerEnd = try self.fill { buf in Self.find([13, 10, 13, 10], in: buf).map { $0 + 4 } }
            let headBytes = self.buffer.withLock { b -> [UInt8] in
                defer { b.removeFirst(headerEnd) }
                return Array(b[..<headerEnd])
            }
            let lines = String(decoding: headBytes, as: UTF8.self).components(separatedBy: "\r\n")
            let statusParts = lines[0].split(separator: " ")
            guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
                throw RawError(description: "bad status line: \(lines[0])")
            }
            var headers: [(String, String)] = []
            for line in lines.dropFirst() where !line.isEmpty {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers.append(
                    (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            }
            let length = headers.first { $0.0.lowercased() == "content-length" }.flatMap { Int($0.1) } ?? 0
            _ = try self.fill { $0.count >= length ? length : nil }
            let body = self.buffer.withLock { b -> [UInt8] in
                defer { b.removeFirst(length) }
                return Array(b[..<length])
            }
            return RawResponse(status: status, headers: headers, body: body)
        }
    }

    /// Reads until the bytes received so far contain `text`; returns them all as text (and consumes them).
    public func read(until text: String) async throws -> String {
        let needle = Array(text.utf8)
        return try await offPool { [self] in
            let end = try self.fill { buf in Self.find(needle, in: buf).map { $0 + needle.count } }
            return self.buffer.withLock { b -> String in
                defer { b.removeFirst(end) }
                return String(decoding: b[..<end], as: UTF8.self)
            }
        }
    }

    /// True when the peer closes (reads return 0) before the receive timeout.
    public func waitForClose() async throws -> Bool {
        let fd = self.fd
        return try await offPool {
            var scratch = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = recv(fd, &scratch, scratch.count, 0)
                if n == 0 { return true }
                if n < 0 { return errno == ECONNRESET }
            }
        }
    }

    /// Sends `request` on a new keep-alive connection again and again until an answer says `Connection: close`
    /// (`ending` is then `closed`) or the connection fails (`ending` is the error). For drain tests.
    public static func requestUntilClosed(port: Int, request: String) async throws -> (answered: Int, ending: String) {
        let connection = try await connect(port: port)
        defer { connection.close() }
        var answered = 0
        while true {
            do {
                try await connection.send(request)
                let response = try await connection.readResponse()
                answered += 1
                if response.header("Connection")?.lowercased() == "close" { return (answered, "closed") }
            } catch {
                return (answered, "\(error)")
            }
        }
    }

    /// Closes the socket (once).
    public func close() {
        let old = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
        if old >= 0 { Foundation.close(old) }
    }

    /// Reads until `ready` returns a value.
    private func fill(_ ready: ([UInt8]) -> Int?) throws -> Int {
        var scratch = [UInt8](repeating: 0, count: 16384)
        while true {
            if let value = buffer.withLock({ ready($0) }) { return value }
            let n = recv(fd, &scratch, scratch.count, 0)
            if n == 0 { throw RawError(description: "connection closed") }
            if n < 0 { throw RawError(description: "recv failed: errno \(errno)") }
            buffer.withLock { $0.append(contentsOf: scratch[..<n]) }
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i..<(i + needle.count)].elementsEqual(needle) {
            return i
        }
        return nil
    }

    deinit { close() }
}
