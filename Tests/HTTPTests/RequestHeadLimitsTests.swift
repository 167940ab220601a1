import Foundation
import HTTPServer
import Runtime
import Synchronization
import TestSupport
import Testing

/// Request heads that are too big, too many-fielded or badly encoded get a prompt 400, 414 or 431, never a held
/// connection.
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
            // Over `RequestHeadCheck.maxQueryFields` fields: our 400 when the head fits in the connection's memory,
            // libmicrohttpd's own 414/431 when it does not; never the handler's 200.
            #expect([400, 414, 431].contains(response.status), "status \(response.status)")
            if count <= 2_500 { #expect(response.status == 400, "status \(response.status)") }
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
            let head =
                Array("GET /x HTTP/1.1\r\nHost: x\r\nX-Device-Id: caf".utf8) + [0xC3, 0x28] + Array("\r\n\r\n".utf8)
            try await connection.send(head)
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
}

extension RequestHeadLimitsTests {
    /// libmicrohttpd hands header values out as C strings, so a NUL inside one would reach the handler cut short;
    /// the server finds the rest of the value in the head and refuses it, wherever the header stands.
    @Test func aHeaderValueHoldingANULIs400() async throws {
        let handler = TestHandler { request in
            .text(200, request.head.headers["X-Device-Id"]?.trimmingCharacters(in: .whitespaces) ?? "-")
        }
        try await withServer(handler) { server in
            let heads: [[UInt8]] = [
                Array("GET /x HTTP/1.1\r\nHost: x\r\nX-Device-Id: ab\0cd\r\nAccept: */*\r\n\r\n".utf8),
                Array("GET /x HTTP/1.1\r\nHost: x\r\nX-Device-Id: ab\0\r\n\r\n".utf8),
                Array("GET /x HTTP/1.1\r\nHost: \0x\r\nX-Device-Id: ab\r\n\r\n".utf8),
                Array("GET /x HTTP/1.1\nHost: x\nX-Device-Id: \0x\nAccept: */*\n\n".utf8),
                Array("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nX-Device-Id: a\0\0b\r\n\r\nhi".utf8),
            ]
            for head in heads {
                let connection = try await RawConnection.connect(port: server.port)
                defer { connection.close() }
                try await connection.send(head)
                let response = try await connection.readResponse()
                #expect(response.status == 400, "\(head)")
                #expect(response.bodyText.contains(RequestHeadCheck.badHeader), "\(head)")
            }
            // Header lines still reach the handler with CR LF or bare LF, spaces and tabs around the value, and
            // empty values; the NULs libmicrohttpd writes over line ends are not mistaken for a cut value.
            let clean: [(head: String, deviceId: String)] = [
                ("GET /x HTTP/1.1\r\nHost: x\r\nX-Device-Id: abc\r\nAccept: */*\r\n\r\n", "abc"),
                ("GET /x HTTP/1.1\nHost: x\nX-Device-Id:\tabc \t\nX-Empty:\n\n", "abc"),
                ("GET /x HTTP/1.1\r\nHost: x\r\nX-Empty:   \r\nX-Device-Id: a b\r\n\r\n", "a b"),
            ]
            for (head, deviceId) in clean {
                let connection = try await RawConnection.connect(port: server.port)
                defer { connection.close() }
                try await connection.send(head)
                let response = try await connection.readResponse()
                #expect(response.status == 200 && response.bodyText == deviceId, "\(head.debugDescription)")
            }
        }
        #expect(handler.stats.handled.load(ordering: .relaxed) == 3)
    }
}
