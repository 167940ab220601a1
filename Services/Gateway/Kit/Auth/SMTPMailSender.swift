import HTTPClient

/// Sign-in mail through an SMTP relay (`SMTP_URL`, `SMTP_FROM`, `SMTP_USERNAME`, `SMTP_PASSWORD`).
struct SMTPMailSender: MailSender {
    let mailer: SMTPMailer

    func send(to email: String, subject: String, body: String) async throws {
        try await mailer.send(to: email, subject: subject, body: body)
    }
}
