import Foundation
import HTTPClient
import Synchronization
import Testing

/// A loopback SMTP server speaking just enough of RFC 5321 for one plain transaction; it records what it received.
final class FakeSMTPServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    final class Log: Sendable {
        let lines = Mutex<[String]>([])
    }
    let log = Log()

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, len) == 0 && listen(fd, 4) == 0 && getsockname(fd, $0, &len) == 0
            }
        }
        guard bound else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        listener = fd
        port = Int(UInt16(bigEndian: addr.sin_port))
        let received = log
        Thread.detachNewThread {
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return }
            defer { close(client) }
            func say(_ line: String) { _ = line.utf8CString.withUnsafeBufferPointer { send(client, $0.baseAddress, $0.count - 1, 0) } }
            say("220 fake ESMTP\r\n")
            var pending = ""
            var inData = false
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                if n <= 0 { return }
                pending += String(decoding: buffer.prefix(n), as: UTF8.self)
                while let range = pending.range(of: inData ? "\r\n.\r\n" : "\r\n") {
                    let chunk = String(pending[..<range.lowerBound])
                    pending = String(pending[range.upperBound...])
                    received.lines.withLock { $0.append(chunk) }
                    if inData {
                        inData = false
                        say("250 queued\r\n")
                        continue
                    }
                    let verb = chunk.prefix(4).uppercased()
                    switch verb {
                    case "EHLO", "HELO": say("250 fake\r\n")
                    case "DATA":
                        inData = true
                        say("354 go ahead\r\n")
                    case "QUIT":
                        say("221 bye\r\n")
                        return
                    default: say("250 ok\r\n")
                    }
                }
            }
        }
    }

    deinit { close(listener) }
}

struct SMTPMailerTests {
    @Test func deliversOneMessageWithoutHeaderInjection() async throws {
        let server = try FakeSMTPServer()
        let mailer = SMTPMailer(
            url: "smtp://127.0.0.1:\(server.port)", from: "Mapvest <no-reply@mapvest.app>", requireTLS: false)
        try await mailer.send(
            to: "person@example.com", subject: "Your code\r\nBcc: evil@example.com", body: "Your code is 123456.")
        let lines = server.log.lines.withLock { $0 }
        #expect(lines.contains { $0.hasPrefix("MAIL FROM:<no-reply@mapvest.app>") })
        #expect(lines.contains("RCPT TO:<person@example.com>"))
        let data = try #require(lines.first { $0.contains("Subject:") })
        #expect(data.contains("Subject: Your codeBcc: evil@example.com"))
        #expect(!data.contains("\r\nBcc:"))
        #expect(data.contains("Your code is 123456."))
    }

    @Test func refusedConnectionIsAConnectError() async throws {
        let mailer = SMTPMailer(url: "smtp://127.0.0.1:9", from: "a@b.c", timeout: .seconds(3), requireTLS: false)
        await #expect(throws: HTTPClientError.self) {
            try await mailer.send(to: "x@y.z", subject: "s", body: "b")
        }
    }
}
