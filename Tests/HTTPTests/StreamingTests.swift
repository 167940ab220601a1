import HTTPServer
import Runtime
import Synchronization
import TestSupport
import Testing

/// Streaming bodies (`HTTPBodyStream`): bytes reach the client as they are written, and shutdown ends a stream that
/// its producer never finishes instead of leaving its connection suspended.
@Suite struct StreamingTests {
    final class Holder: Sendable {
        private let streams = Mutex<[HTTPBodyStream]>([])
        func add(_ stream: HTTPBodyStream) { streams.withLock { $0.append(stream) } }
        var last: HTTPBodyStream? { streams.withLock { $0.last } }
    }

    @Test func bytesArriveAsWrittenAndShutdownEndsAnOpenStream() async throws {
        let holder = Holder()
        let handler = TestHandler { _ in
            let stream = HTTPBodyStream()
            holder.add(stream)
            stream.write("first\n")
            return .streaming(200, headers: [("Content-Type", "text/plain")], stream: stream)
        }
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(
                host: "127.0.0.1", port: 0, threads: 2, name: "test", shutdownGracePeriod: .milliseconds(500)),
            handler: handler, logger: quietLogger, metrics: MetricsRegistry())
        try server.start()

        let connection = try await RawConnection.connect(port: server.port)
        defer { connection.close() }
        try await connection.send("GET /s HTTP/1.1\r\nHost: t\r\n\r\n")
        // The first chunk arrives while the stream is still open (the reader suspended the connection since).
        let head = try await connection.read(until: "first\n")
        #expect(head.hasPrefix("HTTP/1.1 200"))
        #expect(head.lowercased().contains("transfer-encoding: chunked"))
        try await Task.sleep(for: .milliseconds(200))
        let stream = try #require(holder.last)
        #expect(stream.write("second\n"))
        #expect(try await connection.read(until: "second\n").contains("second"))

        // A second request on the same connection works after a finished stream.
        stream.finish()
        _ = try await connection.read(until: "0\r\n\r\n")
        try await connection.send("GET /s HTTP/1.1\r\nHost: t\r\n\r\n")
        _ = try await connection.read(until: "first\n")

        // Its producer never finishes it: shutdown does after the grace period, and the client sees the end of the body.
        let stopped: Bool? = await withTimeLimit(.seconds(15)) {
            await server.shutdown()
            return true
        }
        #expect(stopped != nil)
        #expect(try await connection.read(until: "0\r\n\r\n").hasSuffix("0\r\n\r\n"))
        #expect(holder.last?.write("late") == false)
    }
}
