import HTTPClient
import HTTPServer
import Runtime
import Synchronization
import TestSupport
import Testing
import UpstreamFakes

@Suite("HTTPClient")
struct HTTPClientTests {
    @Test func getSendsHeadersAndQueryAndReadsResponseHeaders() async throws {
        let upstream = try FakeUpstream { _ in
            .json(200, raw: Array(#"{"ok":true}"#.utf8), headers: [("X-Request-Id", "r-1")])
        }
        let client = try makeClient()
        defer { client.shutdown() }
        let response = try await client.execute(
            HTTPClientRequest(
                url: upstream.baseURL + "/v1/search?q=star%20bucks&limit=5",
                headers: [("Authorization", "Bearer test-key"), ("X-Empty", "")]))
        #expect(response.status == 200)
        #expect(response.bodyText == #"{"ok":true}"#)
        #expect(response.headers["x-request-id"] == "r-1")
        #expect(response.headers["CONTENT-TYPE"] == "application/json")
        let recorded = try #require(upstream.lastRequest)
        #expect(recorded.method == "GET")
        #expect(recorded.path == "/v1/search")
        #expect(recorded.rawQuery == "q=star%20bucks&limit=5")
        #expect(recorded.query == ["q": "star bucks", "limit": "5"])
        #expect(recorded.headers["authorization"] == "Bearer test-key")
        #expect(recorded.headers["X-Empty"] == "")
        #expect(recorded.headers["Expect"] == nil)
        #expect(recorded.body.isEmpty)
        await upstream.shutdown()
    }

    @Test func postSendsBodyAndNon2xxIsNotAnError() async throws {
        let upstream = try FakeUpstream { request in
            request.method == "POST" ? .json(201, raw: request.body) : .error(405, "method not allowed")
        }
        let client = try makeClient()
        defer { client.shutdown() }
        let payload = Array(#"{"to":"ExponentPushToken[x]","title":"hi"}"#.utf8)
        let created = try await client.execute(
            HTTPClientRequest(
                method: "POST", url: upstream.baseURL + "/--/api/v2/push/send",
                headers: [("Content-Type", "application/json")], body: payload))
        #expect(created.status == 201)
        #expect(created.body == payload)
        let recorded = try #require(upstream.lastRequest)
        #expect(recorded.method == "POST")
        #expect(recorded.headers["content-type"] == "application/json")
        #expect(recorded.headers["content-length"] == "\(payload.count)")
        #expect(recorded.body == payload)

        let big = [UInt8](repeating: 7, count: 3 << 20)
        let echoed = try await client.execute(
            HTTPClientRequest(method: "POST", url: upstream.baseURL + "/big", body: big))
        #expect(echoed.status == 201 && echoed.body == big)

        let put = try await client.execute(
            HTTPClientRequest(method: "put", url: upstream.baseURL + "/x", body: [1, 2]))
        #expect(put.status == 405)
        let delete = try await client.execute(HTTPClientRequest(method: "DELETE", url: upstream.baseURL + "/x"))
        #expect(delete.status == 405)
        #expect(upstream.requests.map(\.method) == ["POST", "POST", "PUT", "DELETE"])
        await upstream.shutdown()
    }

    @Test func timeoutKind() async throws {
        let upstream = try FakeUpstream { _ in
            try? await Task.sleep(for: .seconds(2))
            return .empty(200)
        }
        let client = try makeClient()
        defer { client.shutdown() }
        let start = ContinuousClock.now
        let error = await #expect(throws: HTTPClientError.self) {
            _ = try await client.execute(
                HTTPClientRequest(url: upstream.baseURL + "/slow", timeout: .milliseconds(200)))
        }
        #expect(error?.kind == .timeout)
        #expect(error?.isRetriable == false)
        #expect(seconds(since: start) < 1.5)
        await upstream.shutdown()
    }

    @Test func connectionRefusedKindAndNoSecretsInDescription() async throws {
        let upstream = try FakeUpstream { _ in .empty(200) }
        let port = upstream.port
        await upstream.shutdown()
        let client = try makeClient()
        defer { client.shutdown() }
        let error = await #expect(throws: HTTPClientError.self) {
            _ = try await client.execute(
                HTTPClientRequest(
                    url: "http://127.0.0.1:\(port)/v1/x?api_key=SECRET-123",
                    headers: [("Authorization", "Bearer SECRET-456")]))
        }
        #expect(error?.kind == .connect)
        #expect(error?.isRetriable == true)
        let texts = [error.map { "\($0)" } ?? "", error.map { String(reflecting: $0) } ?? ""]
        for text in texts {
            #expect(!text.contains("SECRET"))
            #expect(text.contains("127.0.0.1"))
        }
    }

    @Test func invalidRequestsFailWithoutSending() async throws {
        let client = try makeClient()
        defer { client.shutdown() }
        let badHeader = await #expect(throws: HTTPClientError.self) {
            _ = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:1/", headers: [("X", "a\r\nB: c")]))
        }
        #expect(badHeader?.kind == .other)
        let badScheme = await #expect(throws: HTTPClientError.self) {
            _ = try await client.execute(HTTPClientRequest(url: "file:///etc/passwd"))
        }
        #expect(badScheme?.kind == .other)
    }

    @Test func manyConcurrentRequests() async throws {
        let upstream = try FakeUpstream { request in
            try? await Task.sleep(for: .milliseconds(10))
            return .text(200, request.query["i"] ?? "-")
        }
        let client = try makeClient()
        defer { client.shutdown() }
        let base = upstream.baseURL
        let bodies = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for i in 0..<200 {
                group.addTask {
                    let response = try await client.execute(HTTPClientRequest(url: "\(base)/n?i=\(i)"))
                    return (i, response.bodyText)
                }
            }
            return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
        }
        #expect(bodies.count == 200)
        #expect(bodies.allSatisfy { "\($0.key)" == $0.value })
        #expect(upstream.requestCount == 200)
        await upstream.shutdown()
    }

    @Test func cancellationRemovesTheTransferPromptly() async throws {
        let upstream = try FakeUpstream { _ in
            try? await Task.sleep(for: .seconds(5))
            return .empty(200)
        }
        let client = try makeClient()
        defer { client.shutdown() }
        let url = upstream.baseURL + "/hang"
        let request = Task {
            try await client.execute(HTTPClientRequest(url: url, timeout: .seconds(30)))
        }
        _ = await upstream.waitForRequests(1)
        let start = ContinuousClock.now
        request.cancel()
        let result = await request.result
        #expect(seconds(since: start) < 0.5)
        guard case .failure(let error) = result else {
            Issue.record("a cancelled request returned a response")
            return
        }
        #expect((error as? HTTPClientError)?.kind == .cancelled)

        // Cancelled before it starts.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.execute(HTTPClientRequest(url: url))
        }
        guard case .failure(let earlyError) = await early.result else {
            Issue.record("a request cancelled up front returned a response")
            return
        }
        #expect((earlyError as? HTTPClientError)?.kind == .cancelled)
        // The client still works afterwards.
        upstream.respond { _ in .text(200, "after") }
        let after = try await client.execute(HTTPClientRequest(url: upstream.baseURL + "/after"))
        #expect(after.bodyText == "after")
        await upstream.shutdown()
    }

    @Test func oversizedResponsesAndShutdownFail() async throws {
        let upstream = try FakeUpstream { _ in HTTPResponse(status: 200, body: [UInt8](repeating: 1, count: 100_000)) }
        let client = try makeClient()
        let error = await #expect(throws: HTTPClientError.self) {
            _ = try await client.execute(HTTPClientRequest(url: upstream.baseURL, maxResponseBytes: 1000))
        }
        #expect(error?.kind == .other)
        client.shutdown()
        let afterShutdown = await #expect(throws: HTTPClientError.self) {
            _ = try await client.execute(HTTPClientRequest(url: upstream.baseURL))
        }
        #expect(afterShutdown?.kind == .other)
        await upstream.shutdown()
    }

    @Test func sharedClientWorks() async throws {
        let upstream = try FakeUpstream(status: 200, json: #"{"shared":1}"#)
        let response = try await testHTTPClient.execute(HTTPClientRequest(url: upstream.baseURL + "/s"))
        #expect(response.status == 200 && response.bodyText == #"{"shared":1}"#)
        await upstream.shutdown()
    }
}
