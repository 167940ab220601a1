import Contracts
import Foundation
import HTTPServer
import Testing

@testable import GatewayKit

/// Sign-in and session routes: emailed codes, magic links, `/v1/auth/me` and maps tokens. They send no command.
@Suite("Gateway routes: sign-in (in process)")
struct AuthRouteTests {
    static let json = [("Content-Type", "application/json")]

    static func object(_ response: HTTPResponse) -> [String: JSONValue] {
        (try? JSONDecoder().decode([String: JSONValue].self, from: Data(response.body))) ?? [:]
    }

    @Test func aCodeIsIssuedForAValidAddressOnly() async throws {
        let gateway = try GatewayUnderTest()
        for body in [#"{"email":"nope"}"#, "{}", #"{"email":""}"#] {
            let refused = await gateway.send("POST", "/v1/auth/session", headers: Self.json, body: body)
            #expect(refused.status == 400)
            #expect(refused.errorMessage == "email required")
        }
        let sent = await gateway.send(
            "POST", "/v1/auth/session", headers: Self.json, body: #"{"email":" Test@Example.com "}"#)
        #expect(sent.status == 200)
        #expect(Self.object(sent) == ["sent": .bool(true), "devCode": .string("123456")])
        #expect(gateway.mail.mails.map(\.to) == ["test@example.com"])
        #expect(gateway.transport.commands.isEmpty)
    }

    @Test func aCodeIsVerifiedOnceWithTheExactReasons() async throws {
        let gateway = try GatewayUnderTest()
        let path = "/v1/auth/session/verify"
        for body in [
            #"{"email":"test@example.com","code":"12"}"#, #"{"email":"test@example.com","code":"12ab56"}"#, "{}",
        ] {
            let refused = await gateway.send("POST", path, headers: Self.json, body: body)
            #expect(refused.status == 400)
            #expect(refused.errorMessage == "email + 6-digit code required")
        }
        let none = await gateway.send(
            "POST", path, headers: Self.json, body: #"{"email":"test@example.com","code":"123456"}"#)
        #expect(none.status == 401)
        #expect(none.errorMessage == "no code issued for that email")
        _ = await gateway.send("POST", "/v1/auth/session", headers: Self.json, body: #"{"email":"test@example.com"}"#)
        let wrong = await gateway.send(
            "POST", path, headers: Self.json, body: #"{"email":"test@example.com","code":"654321"}"#)
        #expect(wrong.status == 401)
        #expect(wrong.errorMessage == "wrong code")
        let signedIn = await gateway.send(
            "POST", path, headers: Self.json, body: #"{"email":"test@example.com","code":"123456"}"#)
        #expect(signedIn.status == 200)
        guard case .object(let session)? = Self.object(signedIn)["session"], case .string(let token)? = session["token"]
        else {
            Issue.record("no session in \(String(decoding: signedIn.body, as: UTF8.self))")
            return
        }
        #expect(session["userId"] == .string(GatewayUnderTest.userId))
        #expect((try? gateway.tokens.verifySession(token))?.userId == GatewayUnderTest.userId)
        guard case .object(let user)? = Self.object(signedIn)["user"] else {
            Issue.record("no user")
            return
        }
        #expect(user["email"] == .string("test@example.com"))
    }

    @Test func aMagicLinkSignsInOnce() async throws {
        let gateway = try GatewayUnderTest()
        let requested = await gateway.send(
            "POST", "/v1/auth/request-magic-link", headers: Self.json, body: #"{"email":"new@example.com"}"#)
        #expect(requested.status == 200)
        #expect(Self.object(requested) == ["sent": .bool(true)])
        guard let mail = gateway.mail.mails.first?.body, let range = mail.range(of: "/v1/auth/verify?token=") else {
            Issue.record("no magic link mailed")
            return
        }
        #expect(mail.contains("http://gateway.test/v1/auth/verify?token="))
        let token = String(mail[range.upperBound...])
        let verified = await gateway.send(
            "POST", "/v1/auth/verify", headers: Self.json, body: #"{"token":"\#(token)"}"#)
        #expect(verified.status == 200)
        guard case .object(let session)? = Self.object(verified)["session"] else {
            Issue.record("no session")
            return
        }
        #expect(session["userId"] == .string("usr_new"))
        let again = await gateway.send("POST", "/v1/auth/verify", headers: Self.json, body: #"{"token":"\#(token)"}"#)
        #expect(again.status == 401)
        #expect(again.errorMessage == "token already used or expired")
        let viaLink = await gateway.send(
            "GET", "/v1/auth/verify", query: "token=\(token)", headers: [("Accept", "application/json")])
        #expect(viaLink.status == 401)
        #expect(viaLink.errorMessage == "token already used or expired")
    }

    @Test func aMagicLinkTokenIsCheckedBeforeAnyLookup() async throws {
        let gateway = try GatewayUnderTest()
        let session = try gateway.tokens.issueSession(userId: GatewayUnderTest.userId, email: "test@example.com")
        let cases: [(String, Int, String)] = [
            ("{}", 400, "token required"), (#"{"token":"short"}"#, 400, "token required"),
            (#"{"token":"\#(session.token)"}"#, 401, "wrong token purpose"),
            (#"{"token":"abcdefghijklmnop"}"#, 401, "invalid or expired token"),
        ]
        for (body, status, message) in cases {
            let response = await gateway.send("POST", "/v1/auth/verify", headers: Self.json, body: body)
            #expect(response.status == status, "\(body)")
            #expect(response.errorMessage == message)
        }
        let invalid = await gateway.send("POST", "/v1/auth/request-magic-link", headers: Self.json, body: "{}")
        #expect(invalid.status == 400)
        #expect(invalid.errorMessage == "email required")
    }

    @Test func meAndMapsTokensNeedASession() async throws {
        let gateway = try GatewayUnderTest()
        for (method, path) in [("GET", "/v1/auth/me"), ("POST", "/v1/session/maps-token")] {
            let refused = await gateway.send(method, path)
            #expect(refused.status == 401)
            #expect(refused.errorMessage == "missing bearer token")
        }
        let me = await gateway.send("GET", "/v1/auth/me", headers: [("Authorization", try gateway.bearer())])
        #expect(me.status == 200)
        guard case .object(let user)? = Self.object(me)["user"] else {
            Issue.record("no user")
            return
        }
        #expect(user["id"] == .string(GatewayUnderTest.userId))
        let maps = await gateway.send(
            "POST", "/v1/session/maps-token", headers: [("Authorization", try gateway.bearer())])
        #expect(maps.status == 200)
        guard case .string(let token)? = Self.object(maps)["token"] else {
            Issue.record("no maps token")
            return
        }
        #expect((try? gateway.tokens.verifyMaps(token)) == GatewayUnderTest.userId)
        #expect(gateway.transport.commands.isEmpty)
    }
}
