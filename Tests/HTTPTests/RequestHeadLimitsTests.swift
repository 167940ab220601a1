import Foundation
import HTTPServer
import Runtime
import Testing

/// Request heads that are too big, too many-fielded or badly encoded get a prompt 4xx, never a held connection.
@Suite("HTTPServer request head limits")
struct RequestHeadLimitsTests {
    /// A query of `count` × `a=1`.
    static func manyArguments(_ count: Int) -> String {
        Array(repeating: "a=1", count: count).joined(separator: "&")
    }

    @Test(arguments: [1_000, 2_500, 8_000, 20_000])
    func aQueryWithManyArgumentsIsAnsweredPromptly(count: Int) async throws {
        let handler = TestHandler { _ in .text(200, "ok") }
        try await withServer(handler) { server in
            let connection = try await RawConnection.connect(port: server.port, receiveTimeout: .seconds(5))
            defer { connection.close() }
            let started = ContinuousClock.now
            try await connection.send("GET /v1/health?\(Self.manyArguments(count)) HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await connection.readResponse()
            #expect(ContinuousClock.now - started < .seconds(3))
            #expect([200, 400, 414, 431].contains(response.status), "status \(response.status)")
        }
    }
}

extension RequestHeadLimitsTests {
    @Test func nulAndInvalidUTF8InTheTargetOrHeadersAre400() async throws {
        let handler = TestHandler { _ in .text(200, "reached the handler") }
        try await withServer(handler) { server in
            let targets = [
                "/v1/push/token/a%00b", "/v1/finds?limit=%00", "/v1/nearby?lat=1&x%00=2", "/caf%C3", "/x?q=%FF%FE",
                "/x?q=a+%E2%82", "/x?" + Self.manyArguments(RequestHeadCheck.maxQueryFields + 1),
            ]
            for target in targets {
                let connection = try await RawConnection.connect(port: server.port)
                defer { connection.close() }
                try await connection.send("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n")
                let response = try await connection.readResponse()
                #expect(response.status == 400, "\(target)")
                #expect(response.header("Content-Type") == "application/json")
                let body = try JSONDecoder().decode([String: String].self, from: Data(response.body))
                #expect(body["error"]?.isEmpty == false, "\(target)")
            }
            let connection = try await RawConnection.connect(port: server.port)
            defer { connection.close() }
            try await connection.send(Array("GET /x HTTP/1.1\r\nHost: x\r\nX-Device-Id: caf".utf8) + [0xC3, 0x28] + Array("\r\n\r\n".utf8))
            let badHeader = try await connection.readResponse()
            #expect(badHeader.status == 400)
            #expect(badHeader.bodyText.contains(RequestHeadCheck.badHeader))

            // Clean text still reaches the handler, percent-encoded UTF-8 included.
            let clean = try await RawConnection.connect(port: server.port)
            defer { clean.close() }
            try await clean.send("GET /caf%C3%A9?q=%E2%82%AC&n=1 HTTP/1.1\r\nHost: x\r\nX-Device-Id: caf\u{e9}\r\n\r\n")
            let ok = try await clean.readResponse()
            #expect(ok.status == 200 && ok.bodyText == "reached the handler")
        }
        #expect(handler.stats.handled.load(ordering: .relaxed) == 1)
    }

    @Test func aDrainingServerAnswersARequestSentOnAnIdleKeepAliveConnection() async throws {
        let handler = TestHandler { _ in .text(200, "served") }
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, name: "drain-idle"),
            handler: handler, logger: quietLogger, metrics: MetricsRegistry())
        try server.start()
        let connection = try await RawConnection.connect(port: server.port)
        defer { connection.close() }
        try await connection.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = try await connection.readResponse()
        #expect(first.status == 200 && first.header("Connection")?.lowercased() != "close")

        let stopping = Task { await server.shutdown() }
        try await Task.sleep(for: .milliseconds(50))
        try await connection.send("GET /second HTTP/1.1\r\nHost: x\r\n\r\n")
        let second = try await connection.readResponse()
        #expect(second.status == 200 && second.bodyText == "served")
        #expect(second.header("Connection")?.lowercased() == "close")
        await stopping.value
    }

    @Test func keepAliveClientsGetAnAnswerForEveryRequestWhileTheServerDrains() async throws {
        let handler = TestHandler { _ in
            try? await Task.sleep(for: .milliseconds(3))
            return .text(200, "ok")
        }
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, name: "drain-load"),
            handler: handler, logger: quietLogger, metrics: MetricsRegistry())
        try server.start()
        let port = server.port
        /// Per client: answers read, and whether it ended on a `Connection: close` answer (else on an error).
        let outcomes = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for _ in 0..<12 {
                group.addTask {
                    let connection = try await RawConnection.connect(port: port)
                    defer { connection.close() }
                    var answered = 0
                    while true {
                        do {
                            try await connection.send("GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
                            let response = try await connection.readResponse()
                            answered += 1
                            if response.header("Connection")?.lowercased() == "close" { return (answered, "closed") }
                        } catch {
                            return (answered, "\(error)")
                        }
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(300))
            await server.shutdown()
            var all: [(Int, String)] = []
            for try await outcome in group { all.append(outcome) }
            return all
        }
        #expect(outcomes.allSatisfy { $0.1 == "closed" }, "\(outcomes.map(\.1))")
        #expect(outcomes.allSatisfy { $0.0 > 1 })
        await #expect(throws: RawError.self) { _ = try await RawConnection.connect(port: port) }
    }
}
