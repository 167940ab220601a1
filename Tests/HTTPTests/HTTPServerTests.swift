import Foundation
import HTTPClient
import HTTPServer
import Runtime
import Synchronization
import TestSupport
import Testing

@Suite("HTTPServer")
struct HTTPServerTests {
    @Test func requestHeadCarriesRawPathDecodedQueryHeadersAndPeer() async throws {
        let handler = TestHandler { request in
            .json(
                200,
                [
                    "method": request.method, "path": request.path, "raw": request.head.rawQuery ?? "-",
                    "x": request.query["x"] ?? "-", "y": request.query["y"] ?? "-",
                    "flag": request.query["flag"] ?? "-", "header": request.headers["x-test-header"] ?? "-",
                    "peer": request.head.remoteAddress,
                ])
        }
        let client = try makeClient()
        defer { client.shutdown() }
        try await withServer(handler) { server in
            let response = try await client.execute(
                HTTPClientRequest(
                    url: "http://127.0.0.1:\(server.port)/a%20b/c?x=1&y=hello%20world+again&x=2&flag",
                    headers: [("X-Test-Header", "value 1")]))
            #expect(response.status == 200)
            #expect(response.headers["content-type"] == "application/json")
            let fields = try JSONDecoder().decode([String: String].self, from: Data(response.body))
            #expect(fields["method"] == "GET")
            #expect(fields["path"] == "/a%20b/c")
            #expect(fields["raw"] == "x=1&y=hello%20world+again&x=2&flag")
            #expect(fields["x"] == "1")
            #expect(fields["y"] == "hello world again")
            #expect(fields["flag"] == "")
            #expect(fields["header"] == "value 1")
            #expect(fields["peer"] == "127.0.0.1")
        }
    }

    @Test func keepAliveServesSeveralRequestsOnOneConnection() async throws {
        let handler = TestHandler { request in .text(200, "\(request.method) \(request.path) \(request.body.count)") }
        try await withServer(handler) { server in
            let connection = try await RawConnection.connect(port: server.port)
            defer { connection.close() }
            try await connection.send("GET /one HTTP/1.1\r\nHost: x\r\n\r\n")
            let first = try await connection.readResponse()
            try await connection.send("POST /two HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
            let second = try await connection.readResponse()
            try await connection.send("GET /three HTTP/1.1\r\nHost: x\r\n\r\n")
            let third = try await connection.readResponse()
            #expect(first.status == 200 && first.bodyText == "GET /one 0")
            #expect(second.status == 200 && second.bodyText == "POST /two 5")
            #expect(third.status == 200 && third.bodyText == "GET /three 0")
            #expect(first.header("Connection")?.lowercased() != "close")
            #expect(second.header("Connection")?.lowercased() != "close")
            #expect(handler.stats.handled.load(ordering: .relaxed) == 3)
        }
    }

    @Test func headRejectionIsAnsweredWithoutReadingTheBody() async throws {
        let handler = TestHandler(
            decide: { head in
                head.headers["Authorization"] == nil ? .respond(.error(401, "unauthorized")) : .accept()
            },
            respond: { _ in .empty(204) })
        try await withServer(handler) { server in
            let connection = try await RawConnection.connect(port: server.port, receiveTimeout: .seconds(3))
            defer { connection.close() }
            let start = ContinuousClock.now
            try await connection.send(
                "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: image/jpeg\r\nContent-Length: 50000000\r\n\r\nabc")
            let response = try await connection.readResponse()
            #expect(response.status == 401)
            #expect(response.bodyText == #"{"error":"unauthorized"}"#)
            #expect(response.header("Connection")?.lowercased() == "close")
            #expect(seconds(since: start) < 1)
            #expect(try await connection.waitForClose())
            #expect(handler.stats.handled.load(ordering: .relaxed) == 0)
        }
    }

    @Test func declaredContentLengthOverTheLimitIsRejectedAtOnce() async throws {
        let handler = TestHandler(
            decide: { _ in .readBody(limit: 8 << 20, tooLarge: .error(413, "photo too large"), state: nil) },
            respond: { _ in .empty(204) })
        try await withServer(handler) { server in
            let connection = try await RawConnection.connect(port: server.port, receiveTimeout: .seconds(3))
            defer { connection.close() }
            let start = ContinuousClock.now
            try await connection.send(
                "POST /v1/identify HTTP/1.1\r\nHost: x\r\nContent-Length: \(9 << 20)\r\n\r\nonly a few bytes")
            let response = try await connection.readResponse()
            #expect(response.status == 413)
            #expect(response.bodyText == #"{"error":"photo too large"}"#)
            #expect(response.header("Connection")?.lowercased() == "close")
            #expect(seconds(since: start) < 1)
            #expect(handler.stats.handled.load(ordering: .relaxed) == 0)
        }
    }

    @Test func chunkedUploadIsCountedAgainstTheLimit() async throws {
        let handler = TestHandler(
            decide: { _ in .readBody(limit: 1000, tooLarge: .error(413, "too large"), state: "admitted") },
            respondWithState: { request, state in .text(200, "\(request.body.count) \(state ?? "-")") })
        try await withServer(handler) { server in
            let chunk = String(repeating: "a", count: 300)
            let small = try await RawConnection.connect(port: server.port)
            defer { small.close() }
            try await small.send(
                "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "12c\r\n\(chunk)\r\n12c\r\n\(chunk)\r\n0\r\n\r\n")
            let accepted = try await small.readResponse()
            #expect(accepted.status == 200)
            #expect(accepted.bodyText == "600 admitted")

            let large = try await RawConnection.connect(port: server.port)
            defer { large.close() }
            try await large.send(
                "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "12c\r\n\(chunk)\r\n12c\r\n\(chunk)\r\n12c\r\n\(chunk)\r\n12c\r\n\(chunk)\r\n0\r\n\r\n")
            let rejected = try await large.readResponse()
            #expect(rejected.status == 413)
            #expect(rejected.header("Connection")?.lowercased() == "close")
            #expect(handler.stats.handled.load(ordering: .relaxed) == 1)
        }
    }

    @Test func aSmallBodyReadBeforeHeadGetsTheSameAnswers() async throws {
        let handler = TestHandler(
            decide: { head in
                guard head.headers["Authorization"] != nil else { return .respond(.error(401, "unauthorized")) }
                return .readBody(limit: 5, tooLarge: .error(413, "body too large"), state: "admitted")
            },
            respondWithState: { request, state in
                .text(200, "\(String(decoding: request.body, as: UTF8.self)) \(state ?? "-")")
            })
        try await withServer(handler) { server in
            let connection = try await RawConnection.connect(port: server.port)
            defer { connection.close() }
            // The head and the body in separate writes, the body in two: read first, then one task.
            try await connection.send("POST /s HTTP/1.1\r\nHost: x\r\nAuthorization: a\r\nContent-Length: 5\r\n\r\n")
            try await connection.send("hel")
            try await connection.send("lo")
            let exact = try await connection.readResponse()
            #expect(exact.status == 200 && exact.bodyText == "hello admitted")
            #expect(exact.header("Connection")?.lowercased() != "close")

            try await connection.send(
                "POST /s HTTP/1.1\r\nHost: x\r\nAuthorization: a\r\nContent-Length: 6\r\n\r\nhello!")
            let tooLarge = try await connection.readResponse()
            #expect(tooLarge.status == 413 && tooLarge.bodyText == #"{"error":"body too large"}"#)
            #expect(tooLarge.header("Connection")?.lowercased() == "close")
            #expect(try await connection.waitForClose())

            let anonymous = try await RawConnection.connect(port: server.port)
            defer { anonymous.close() }
            try await anonymous.send("POST /s HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
            let refused = try await anonymous.readResponse()
            #expect(refused.status == 401 && refused.bodyText == #"{"error":"unauthorized"}"#)
            #expect(refused.header("Connection")?.lowercased() == "close")
            #expect(try await anonymous.waitForClose())
            #expect(handler.stats.handled.load(ordering: .relaxed) == 1)
        }
    }

    @Test func expectContinueGetsInterimResponse() async throws {
        let handler = TestHandler { request in .text(200, String(decoding: request.body, as: UTF8.self)) }
        try await withServer(handler) { server in
            let connection = try await RawConnection.connect(port: server.port)
            defer { connection.close() }
            try await connection.send(
                "PUT /e HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
            let interim = try await connection.readResponse()
            #expect(interim.status == 100)
            try await connection.send("hello")
            let final = try await connection.readResponse()
            #expect(final.status == 200 && final.bodyText == "hello")
        }
    }

    @Test func suspendedHandlersHoldNoThread() async throws {
        let handler = TestHandler { _ in
            try? await Task.sleep(for: .milliseconds(50))
            return .text(200, "ok")
        }
        let client = try makeClient(maxConnectionsPerHost: 128)
        defer { client.shutdown() }
        try await withServer(handler) { server in
            let url = "http://127.0.0.1:\(server.port)/slow"
            let start = ContinuousClock.now
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<100 {
                    group.addTask { try await client.execute(HTTPClientRequest(url: url)).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            let elapsed = seconds(since: start)
            #expect(statuses.count == 100 && statuses.allSatisfy { $0 == 200 })
            // Two polling threads: holding a thread per request would take >= 100 × 50 ms / 2 = 2.5 s.
            #expect(elapsed < 1.5)
            #expect(handler.stats.peak.load(ordering: .relaxed) >= 50)
        }
    }

    @Test func headRequestsAndEmptyResponses() async throws {
        let handler = TestHandler { request in
            request.path == "/empty" ? .empty(204) : .text(200, "body text")
        }
        try await withServer(handler) { server in
            let connection = try await RawConnection.connect(port: server.port)
            defer { connection.close() }
            try await connection.send("GET /empty HTTP/1.1\r\nHost: x\r\n\r\n")
            let empty = try await connection.readResponse()
            #expect(empty.status == 204 && empty.body.isEmpty)
            try await connection.send("GET /text HTTP/1.1\r\nHost: x\r\n\r\n")
            let text = try await connection.readResponse()
            #expect(text.status == 200 && text.bodyText == "body text")
        }
    }

    @Test func malformedRequestsNeverCrashTheServer() async throws {
        let handler = TestHandler { _ in .text(200, "fine") }
        try await withServer(handler) { server in
            for garbage in [
                "GARBAGE\r\n\r\n", "GET / HTTP/1.1\r\nno colon here\r\n\r\n",
                "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: banana\r\n\r\n",
                "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
                "GET / HTTP/1.1\r\n\r\n", "\u{0}\u{1}\u{2}\r\n\r\n",
            ] {
                // MHD answers 400 and closes, or (binary junk) waits for more until the idle timeout.
                let connection = try await RawConnection.connect(
                    port: server.port, receiveTimeout: .milliseconds(300))
                try await connection.send(garbage)
                _ = try? await connection.readResponse()
                connection.close()
            }
            let connection = try await RawConnection.connect(port: server.port)
            defer { connection.close() }
            try await connection.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await connection.readResponse()
            #expect(response.status == 200 && response.bodyText == "fine")
        }
    }

    @Test func invalidHandlerOutputIsSanitised() async throws {
        let handler = TestHandler { _ in
            HTTPResponse(status: 42, headers: [("X-Bad", "a\r\nInjected: yes"), ("Content-Length", "99")], body: [1])
        }
        try await withServer(handler) { server in
            let connection = try await RawConnection.connect(port: server.port)
            defer { connection.close() }
            try await connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await connection.readResponse()
            #expect(response.status == 500)
            #expect(response.header("Injected") == nil && response.header("X-Bad") == nil)
            #expect(response.body == [1])
        }
    }

    @Test func shutdownLetsInFlightRequestsFinish() async throws {
        let handler = TestHandler { _ in
            try? await Task.sleep(for: .milliseconds(300))
            return .text(200, "finished")
        }
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, name: "drain"),
            handler: handler, logger: quietLogger, metrics: MetricsRegistry())
        let running = Task { try await server.run() }
        while server.port == 0 { try await Task.sleep(for: .milliseconds(5)) }
        let port = server.port
        let connection = try await RawConnection.connect(port: port)
        defer { connection.close() }
        try await connection.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        while server.activeRequests == 0 { try await Task.sleep(for: .milliseconds(5)) }
        let stopping = Task { await server.shutdown() }
        let response = try await connection.readResponse()
        #expect(response.status == 200 && response.bodyText == "finished")
        #expect(response.header("Connection")?.lowercased() == "close")
        await stopping.value
        try await running.value
        await #expect(throws: RawError.self) { _ = try await RawConnection.connect(port: port) }
    }

    @Test func shutdownAnswersStuckRequests503AfterTheGracePeriod() async throws {
        let handler = TestHandler { _ in
            try? await Task.sleep(for: .seconds(30))
            return .text(200, "too late")
        }
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(
                host: "127.0.0.1", port: 0, name: "stuck", shutdownGracePeriod: .milliseconds(200)),
            handler: handler, logger: quietLogger, metrics: MetricsRegistry())
        try server.start()
        let connection = try await RawConnection.connect(port: server.port)
        defer { connection.close() }
        try await connection.send("GET /stuck HTTP/1.1\r\nHost: x\r\n\r\n")
        while server.activeRequests == 0 { try await Task.sleep(for: .milliseconds(5)) }
        let start = ContinuousClock.now
        await server.shutdown()
        #expect(seconds(since: start) < 2)
        let response = try await connection.readResponse()
        #expect(response.status == 503)
    }

    @Test func metricsCountResponsesByStatusClass() async throws {
        let metrics = MetricsRegistry()
        let handler = TestHandler { request in request.path == "/missing" ? .error(404, "not found") : .empty(200) }
        try await withServer(handler, metrics: metrics) { server in
            let connection = try await RawConnection.connect(port: server.port)
            defer { connection.close() }
            for path in ["/a", "/b", "/missing"] {
                try await connection.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
                _ = try await connection.readResponse()
            }
        }
        let text = metrics.render()
        #expect(text.contains(#"http_requests_total{status_class="2xx"} 2"#))
        #expect(text.contains(#"http_requests_total{status_class="4xx"} 1"#))
        #expect(text.contains("http_request_duration_seconds_count 3"))
    }

    @Test func startFailsOnABusyPortAndBadHost() async throws {
        let handler = TestHandler { _ in .empty(200) }
        try await withServer(handler) { server in
            let second = HTTPServer(
                configuration: HTTPServerConfiguration(host: "127.0.0.1", port: server.port),
                handler: handler, logger: quietLogger, metrics: MetricsRegistry())
            #expect(throws: HTTPServerError.self) { try second.start() }
        }
        let bad = HTTPServer(
            configuration: HTTPServerConfiguration(host: "not-an-ip"), handler: handler, logger: quietLogger,
            metrics: MetricsRegistry())
        #expect(throws: HTTPServerError.self) { try bad.start() }
    }
}

@Suite("HTTPServer lifecycle")
struct HTTPServerLifecycleTests {
    /// Holds the only reference, so it can be dropped on a chosen thread.
    final class Holder: @unchecked Sendable {
        var server: HTTPServer?
    }

    @Test func droppingARunningServerAnswersSuspendedRequests() async throws {
        let handler = TestHandler { _ in
            try? await Task.sleep(for: .seconds(30))
            return .text(200, "too late")
        }
        let holder = Holder()
        holder.server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, name: "dropped"),
            handler: handler, logger: quietLogger, metrics: MetricsRegistry())
        try holder.server?.start()
        let connection = try await RawConnection.connect(port: holder.server?.port ?? 0)
        defer { connection.close() }
        try await connection.send("GET /stuck HTTP/1.1\r\nHost: x\r\n\r\n")
        while (holder.server?.activeRequests ?? 0) == 0 { try await Task.sleep(for: .milliseconds(5)) }
        // Released on a plain thread: MHD_stop_daemon joins MHD's threads.
        try await offPool { holder.server = nil }
        let response = try await connection.readResponse()
        #expect(response.status == 503)
    }
}
