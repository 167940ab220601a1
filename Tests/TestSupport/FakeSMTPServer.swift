import Foundation
import Synchronization

/// A loopback SMTP server speaking just enough of RFC 5321 for plain transactions; it records what it received.
public final class FakeSMTPServer: @unchecked Sendable {
    public let port: Int
    private let listener: Int32
    /// Every command line and message body received, in order.
    public final class Log: Sendable {
        public let lines = Mutex<[String]>([])
    }
    public let log = Log()

    /// Listens on a free loopback port and serves connections one after another.
    public init() throws {
        (listener, port) = try loopbackListener(backlog: 4, reuseAddress: true)
        let fd = listener
        let received = log
        Thread.detachNewThread {
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }
                Self.serve(client, log: received)
                close(client)
            }
        }
    }

    /// One SMTP session: greet, acknowledge every command, record lines and message bodies until `QUIT`.
    private static func serve(_ client: Int32, log received: Log) {
        func say(_ line: String) {
            _ = line.utf8CString.withUnsafeBufferPointer { send(client, $0.baseAddress, $0.count - 1, 0) }
        }
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

    deinit { close(listener) }
}
