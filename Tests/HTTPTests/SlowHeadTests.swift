import Foundation
import HTTPServer
import Runtime
import Synchronization
import TestSupport
import Testing

/// Heads that trickle in are cut off at a total deadline, and one address holds at most its share of connections.
@Suite("HTTPServer slow heads and per-client connections")
struct SlowHeadTests {
    static func withConfiguredServer(
        headTimeout: Duration = .seconds(10), perClient: Int = 0, _ handler: TestHandler,
        _ body: (HTTPServer) async throws -> Void
    ) async throws {
        try await withServer(
            handler,
            configuration: HTTPServerConfiguration(
                host: "127.0.0.1", port: 0, threads: 2, headTimeout: headTimeout, perClientConnectionLimit: perClient,
                name: "test"),
            body)
    }

    @Test func aHeadDrippedByteByByteIsCutOffAtTheDeadline() async throws {
        let handler = TestHandler { _ in .text(200, "reached the handler") }
        try await Self.withConfiguredServer(headTimeout: .seconds(1), handler) { server in
            let started = ContinuousClock.now
            let connection = try await RawConnection.connect(port: server.port, receiveTimeout: .seconds(8))
            defer { connection.close() }
            try await connection.send("GET /x HTTP/1.1\r\nHost: x\r\n")
            // One header byte every 100 ms: each resets an idle timeout, none reaches the end of the head.
            let drip = Task {
                for byte in Array("X-Slow: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 200) {
                    try await Task.sleep(for: .milliseconds(100))
                    try await connection.send([byte])
                }
            }
            let closed = try await connection.waitForClose()
            drip.cancel()
            let elapsed = ContinuousClock.now - started
            #expect(closed)
            #expect(elapsed >= .milliseconds(900) && elapsed < .seconds(5), "closed after \(elapsed)")

            // A head that arrives in time is answered, and so is the next one on the same connection.
            let prompt = try await RawConnection.connect(port: server.port)
            defer { prompt.close() }
            for _ in 0..<2 {
                try await prompt.send("GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try await prompt.readResponse().status == 200)
            }
        }
        #expect(handler.stats.handled.load(ordering: .relaxed) == 2)
    }

    @Test func oneAddressHoldsAtMostItsShareOfConnections() async throws {
        let handler = TestHandler { _ in .text(200, "ok") }
        try await Self.withConfiguredServer(perClient: 2, handler) { server in
            let first = try await RawConnection.connect(port: server.port)
            defer { first.close() }
            let second = try await RawConnection.connect(port: server.port)
            defer { second.close() }
            try await first.send("GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await first.readResponse().status == 200)
            try await second.send("GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await second.readResponse().status == 200)

            let third = try await RawConnection.connect(port: server.port, receiveTimeout: .seconds(3))
            defer { third.close() }
            try? await third.send("GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await third.waitForClose())

            // Closing one frees its place.
            first.close()
            try await Task.sleep(for: .milliseconds(200))
            let fourth = try await RawConnection.connect(port: server.port)
            defer { fourth.close() }
            try await fourth.send("GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await fourth.readResponse().status == 200)
        }
        #expect(handler.stats.handled.load(ordering: .relaxed) == 3)
    }
}
