import Contracts
import Foundation
import HTTPServer
import Messaging
import Testing

@testable import GatewayKit

/// `POST /v1/identify`: the guards' verdict, the multipart form's rules, the photo claim check and the command.
@Suite("Gateway routes: identify (in process)")
struct IdentifyRouteTests {
    static let multipart = [("Content-Type", "multipart/form-data; boundary=B")]

    /// A form with an image part of `type` (none when nil) and the given text fields.
    static func form(image type: String? = "image/jpeg", fields: [String: String] = [:]) -> String {
        var body = ""
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            body += "--B\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
        }
        if let type {
            body += "--B\r\nContent-Disposition: form-data; name=\"image\"; filename=\"p.jpg\"\r\n"
            body += "Content-Type: \(type)\r\n\r\nfakejpeg\r\n"
        }
        return body + "--B--\r\n"
    }

    @Test func aPhotoIsStoredAndSentByItsClaimKey() async throws {
        let gateway = try GatewayUnderTest()
        let response = await gateway.send(
            "POST", "/v1/identify", headers: Self.multipart + [("X-Device-Id", " dev-1 ")],
            body: Self.form(fields: ["hint": "  Starbucks  ", "location": #"{"lat":40.7,"lng":-74}"#]))
        #expect(response.status == 200)
        #expect(response.header("X-Identify-RateLimit-Limit") == "10")
        let command = gateway.transport.commands.first
        #expect(command?.service == .identify)
        #expect(command?.name == "identify.photo.v1")
        #expect(command?.key == "dev-1")
        let key = "mapvest:photo:test0"
        #expect(command?.fields["photoKey"] == .string(key))
        #expect(command?.fields["photoContentType"] == .string("image/jpeg"))
        #expect(command?.fields["photoBytes"] == .number(8))
        #expect(command?.fields["hint"] == .string("Starbucks"))
        #expect(command?.fields["deviceId"] == .string("dev-1"))
        #expect(command?.fields["location"] == .object(["lat": .number(40.7), "lng": .number(-74)]))
        #expect(gateway.photos.photos[key] == Array("fakejpeg".utf8))
        #expect(gateway.gate.usage == ["-|dev-1"])
    }

    @Test func aSignedInCallerKeysTheCommandByUser() async throws {
        let gateway = try GatewayUnderTest()
        let response = await gateway.send(
            "POST", "/v1/identify", headers: Self.multipart + [("Authorization", try gateway.bearer())],
            body: Self.form(fields: ["lat": "1", "lng": "2"]))
        #expect(response.status == 200)
        #expect(gateway.transport.commands.first?.key == GatewayUnderTest.userId)
        #expect(gateway.transport.commands.first?.fields["userId"] == .string(GatewayUnderTest.userId))
        #expect(
            gateway.transport.commands.first?.fields["location"] == .object(["lat": .number(1), "lng": .number(2)]))
        #expect(gateway.gate.usage == [GatewayUnderTest.userId + "|-"])
    }

    @Test func theFormIsRefusedWithTheContractsAnswers() async throws {
        let gateway = try GatewayUnderTest()
        let cases: [([(String, String)], String, Int, String)] = [
            ([("Content-Type", "application/json")], "{}", 400, "invalid multipart body"),
            (Self.multipart, "not a form", 400, "invalid multipart body"),
            (Self.multipart, Self.form(image: nil, fields: ["hint": "x"]), 400, "image required"),
            (Self.multipart, Self.form(image: "text/plain"), 415, "unsupported media type (expected image/*)"),
        ]
        for (headers, body, status, message) in cases {
            let response = await gateway.send("POST", "/v1/identify", headers: headers, body: body)
            #expect(response.status == status, "\(message)")
            #expect(response.errorMessage == message)
        }
        let large = await gateway.send(
            "POST", "/v1/identify", headers: Self.multipart, body: String(repeating: "a", count: (8 << 20) + 1))
        #expect(large.status == 413)
        #expect(large.errorMessage == "image too large (max 8MB)")
        #expect(gateway.transport.commands.isEmpty)
        #expect(gateway.photos.photos.isEmpty)
        #expect(gateway.gate.usage.isEmpty)
    }

    @Test func theGuardsAnswerBeforeTheBodyIsRead() async throws {
        let gateway = try GatewayUnderTest(gate: RecordingGate(reject: .error(429, "too many identifies")))
        let response = await gateway.send("POST", "/v1/identify", headers: Self.multipart, body: Self.form())
        #expect(response.status == 429)
        #expect(response.errorMessage == "too many identifies")
        #expect(response.header("X-Identify-RateLimit-Limit") == "10")
        #expect(gateway.photos.photos.isEmpty)
        #expect(gateway.transport.commands.isEmpty)
    }

    @Test func onlyAnsweredIdentifiesCountAgainstTheQuota() async throws {
        let failing = RecordingTransport(.success(Reply(status: 422, body: Array(#"{"error":"no brand"}"#.utf8))))
        let gateway = try GatewayUnderTest(transport: failing)
        let response = await gateway.send(
            "POST", "/v1/identify", headers: Self.multipart + [("X-Device-Id", "dev-1")], body: Self.form())
        #expect(response.status == 422)
        #expect(gateway.transport.commands.count == 1)
        #expect(gateway.gate.usage.isEmpty)
    }
}
