import Foundation
import HTTPClient
import Synchronization
import TestSupport
import Testing

extension SystemTests {
    /// The mailed magic link through a real gateway and a loopback SMTP server: requested by POST, delivered, opened
    /// by GET in a browser (an HTML page) or by an app asking for JSON, and single use across GET and POST.
    @Suite struct MagicLinkTests {
        /// The token of the newest sign-in link the fake server received.
        static func mailedToken(_ smtp: FakeSMTPServer, after count: Int) async throws -> String {
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                let bodies = smtp.log.lines.withLock { $0 }.filter { $0.contains("/v1/auth/verify?token=") }
                if bodies.count > count, let body = bodies.last, let start = body.range(of: "verify?token=") {
                    return String(body[start.upperBound...].prefix { !$0.isWhitespace })
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw Failure("no sign-in mail arrived")
        }

        static func open(_ gateway: GatewayProcess, _ query: String, accept: String) async throws -> HTTPClientResponse
        {
            try await SystemClient.send(gateway, "GET", "/v1/auth/verify" + query, headers: [("Accept", accept)])
        }

        static let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

        @Test func theMailedLinkWorksInABrowserOnce() async throws {
            let smtp = try FakeSMTPServer()
            let gateway = try await GatewayProcess.start(
                instance: "test-magic-\(UInt16.random(in: 0...9999))",
                extra: ["SMTP_URL": "smtp://127.0.0.1:\(smtp.port)", "PUBLIC_API_URL": "https://api.example.test"])
            defer { gateway.process.kill() }
            let email = "linked-\(UInt32.random(in: 0...UInt32.max))@example.com"
            let request = "{\"email\":\"\(email)\"}"

            let sent = try await SystemClient.send(gateway, "POST", "/v1/auth/request-magic-link", json: request)
            #expect(sent.status == 200 && SystemClient.json(sent)["sent"] as? Bool == true)
            let mail = try #require(smtp.log.lines.withLock { $0 }.first { $0.contains("verify?token=") })
            #expect(mail.contains("https://api.example.test/v1/auth/verify?token="))
            let token = try await Self.mailedToken(smtp, after: 0)

            // Opened in a browser: a page, not cached, no referrer; the same link again says it expired.
            let page = try await Self.open(gateway, "?token=\(token)", accept: Self.browser)
            #expect(page.status == 200)
            #expect(page.headers["Content-Type"] == "text/html; charset=utf-8")
            #expect(page.headers["Cache-Control"] == "no-store" && page.headers["Referrer-Policy"] == "no-referrer")
            #expect(SystemClient.text(page).contains("You're signed in"))
            #expect(SystemClient.text(page).contains(email))
            #expect(!SystemClient.text(page).contains(token))
            let again = try await Self.open(gateway, "?token=\(token)", accept: Self.browser)
            #expect(again.status == 401 && SystemClient.text(again).contains("This link has expired"))
            let replayed = try await SystemClient.send(
                gateway, "POST", "/v1/auth/verify", json: "{\"token\":\"\(token)\"}")
            #expect(replayed.status == 401 && SystemClient.errorMessage(replayed) == "token already used or expired")

            // Opened by an app asking for JSON: the POST's `{session}`, and the session works.
            #expect(
                try await SystemClient.send(gateway, "POST", "/v1/auth/request-magic-link", json: request).status == 200
            )
            let second = try await Self.mailedToken(smtp, after: 1)
            let json = try await Self.open(gateway, "?token=\(second)", accept: "application/json")
            #expect(json.status == 200)
            let session = try #require(SystemClient.json(json)["session"] as? [String: Any])
            let bearer = try #require(session["token"] as? String)
            let me = try await SystemClient.send(
                gateway, "GET", "/v1/auth/me", headers: [("Authorization", "Bearer \(bearer)")])
            #expect((SystemClient.json(me)["user"] as? [String: Any])?["email"] as? String == email)
            let used = try await Self.open(gateway, "?token=\(second)", accept: "application/json")
            #expect(used.status == 401 && SystemClient.errorMessage(used) == "token already used or expired")

            // A link used by POST first is spent for the browser too.
            #expect(
                try await SystemClient.send(gateway, "POST", "/v1/auth/request-magic-link", json: request).status == 200
            )
            let third = try await Self.mailedToken(smtp, after: 2)
            let posted = try await SystemClient.send(
                gateway, "POST", "/v1/auth/verify", json: "{\"token\":\"\(third)\"}")
            #expect(posted.status == 200 && SystemClient.json(posted)["session"] != nil)
            #expect(try await Self.open(gateway, "?token=\(third)", accept: Self.browser).status == 401)

            // Broken links: no token (400 page), a forged token, a session token (wrong purpose).
            let missing = try await Self.open(gateway, "", accept: Self.browser)
            #expect(missing.status == 400 && SystemClient.text(missing).contains("This link is incomplete"))
            let forged = try await Self.open(gateway, "?token=not.a.valid.token", accept: "application/json")
            #expect(forged.status == 401 && SystemClient.errorMessage(forged) == "invalid or expired token")
            let wrongPurpose = try await Self.open(gateway, "?token=\(bearer)", accept: "application/json")
            #expect(wrongPurpose.status == 401 && SystemClient.errorMessage(wrongPurpose) == "wrong token purpose")
        }
    }
}
