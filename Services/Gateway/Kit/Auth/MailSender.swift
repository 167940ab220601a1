import Runtime

/// Delivers sign-in mail. In dev (no `SMTP_URL`) mail goes to a sink that logs that a message was sent — never its
/// code, link or address.
protocol MailSender: Sendable {
    func send(to email: String, subject: String, body: String) async throws
}

struct DevMailSink: MailSender {
    let logger: Logger

    func send(to email: String, subject: String, body: String) async throws {
        logger.info("sign-in mail (dev sink; not delivered)", [LogKeys.mailSubject: .string(subject)])
    }
}
