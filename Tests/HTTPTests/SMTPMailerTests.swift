import Foundation
import HTTPClient
import Synchronization
import TestSupport
import Testing

struct SMTPMailerTests {
    @Test func deliversOneMessageWithoutHeaderInjection() async throws {
        let server = try FakeSMTPServer()
        let mailer = SMTPMailer(
            url: "smtp://127.0.0.1:\(server.port)", from: "Mapvest <no-reply@mapvest.app>", requireTLS: false)
        try await mailer.send(
            to: "person@example.com", subject: "Your code\r\nBcc: evil@example.com", body: "Your code is 123456.")
        let lines = server.log.lines.withLock { $0 }
        #expect(lines.contains { $0.hasPrefix("MAIL FROM:<no-reply@mapvest.app>") })
        #expect(lines.contains("RCPT TO:<person@example.com>"))
        let data = try #require(lines.first { $0.contains("Subject:") })
        #expect(data.contains("Subject: Your codeBcc: evil@example.com"))
        #expect(!data.contains("\r\nBcc:"))
        #expect(data.contains("Your code is 123456."))
    }

    @Test func refusedConnectionIsAConnectError() async throws {
        let mailer = SMTPMailer(url: "smtp://127.0.0.1:9", from: "a@b.c", timeout: .seconds(3), requireTLS: false)
        await #expect(throws: HTTPClientError.self) {
            try await mailer.send(to: "x@y.z", subject: "s", body: "b")
        }
    }
}
