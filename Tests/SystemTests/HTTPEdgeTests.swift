import Contracts
import Foundation
import HTTPClient
import Runtime
import TestSupport
import Testing

extension SystemTests {
    /// Bad input gets a clear 4xx in the contract's shape and never reaches Kafka.
    @Suite struct HTTPEdgeTests {
        @Test func identifyFormErrors() async throws {
            let gateway = try await GatewayProcess.start(instance: "test-edge-\(UInt16.random(in: 0...9999))")
            defer { gateway.process.kill() }
            func post(_ body: [UInt8], contentType: String) async throws -> HTTPClientResponse {
                try await testHTTPClient.execute(
                    HTTPClientRequest(
                        method: "POST", url: gateway.baseURL + "/v1/identify",
                        headers: [("Content-Type", contentType), ("X-Device-Id", "edge")], body: body))
            }

            let malformed = try await post(
                Array("--x\r\nnot a part".utf8), contentType: "multipart/form-data; boundary=x")
            #expect(malformed.status == 400)
            #expect(SystemClient.errorMessage(malformed) == "invalid multipart body")

            let json = try await post(Array("{}".utf8), contentType: "application/json")
            #expect(json.status == 400)

            var noImage = MultipartBody()
            noImage.addText(name: "hint", value: "Starbucks")
            let missing = try await post(noImage.finished(), contentType: noImage.contentType)
            #expect(missing.status == 400)
            #expect(SystemClient.errorMessage(missing) == "image required")

            let text = MultipartBody.identify(hint: nil, image: Array("hello".utf8), imageType: "text/plain")
            let wrongType = try await post(text.finished(), contentType: text.contentType)
            #expect(wrongType.status == 415)
            #expect(SystemClient.errorMessage(wrongType) == "unsupported media type (expected image/*)")

            let untyped = MultipartBody.identify(hint: nil, imageType: nil)
            let noType = try await post(untyped.finished(), contentType: untyped.contentType)
            #expect(noType.status == 415)
        }

        @Test func oversizedBodyIsRejectedFromContentLengthBeforeReading() async throws {
            let gateway = try await GatewayProcess.start(instance: "test-big-\(UInt16.random(in: 0...9999))")
            defer { gateway.process.kill() }
            let started = ContinuousClock.now
            let reply = try await RawHTTP.exchange(
                port: gateway.port,
                request: "POST /v1/identify HTTP/1.1\r\nHost: x\r\nX-Device-Id: big\r\n"
                    + "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 9000000\r\n\r\n--b\r\n")
            #expect(reply.hasPrefix("HTTP/1.1 413"))
            #expect(reply.contains("image too large (max 8MB)"))
            #expect(ContinuousClock.now - started < .seconds(3))
        }

        @Test func unknownPathsAndBadJSON() async throws {
            let gateway = try await GatewayProcess.start(instance: "test-404-\(UInt16.random(in: 0...9999))")
            defer { gateway.process.kill() }
            let unknown = try await SystemClient.send(gateway, "GET", "/v1/nope")
            #expect(unknown.status == 404)
            #expect(SystemClient.errorMessage(unknown) == "not found")

            let badJSON = try await SystemClient.send(gateway, "POST", "/v1/resolve-comparable", json: "{not json")
            #expect(badJSON.status == 400)
            #expect(SystemClient.errorMessage(badJSON) == "brand required")

            let health = try await SystemClient.send(gateway, "GET", "/v1/health")
            #expect(health.status == 200)
            let body = try JSONDecoder().decode(HealthResponse.self, from: Data(health.body))
            #expect(body.ok && body.status == "ok" && body.service == "mapvest-api")
            #expect(Timestamp.parse(body.timestamp) != nil)
            #expect(health.headers["Access-Control-Allow-Origin"] == "*")
        }
    }
}

/// One request over a raw socket; returns what the server sent back (headers and body) before closing or 3 s.
enum RawHTTP {
    static func exchange(port: Int, request: String) async throws -> String {
        try await offPool { try blockingExchange(port: port, request: request) }
    }

    private static func blockingExchange(port: Int, request: String) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket") }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else { throw Failure("connect") }
        var timeout = timeval(tv_sec: 3, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            out += buffer.prefix(n)
            if let text = String(bytes: out, encoding: .utf8), text.contains("\r\n\r\n"), text.contains("}") { break }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
