import CCurl
import Dispatch
import Foundation

/// Sends plain-text mail over SMTP with libcurl (sign-in codes in production). Each message is one blocking transfer
/// on a dedicated queue, never on the cooperative pool. `url` is `smtp://host:587` (STARTTLS required) or
/// `smtps://host:465`; credentials come separately and are never logged.
public struct SMTPMailer: Sendable {
    public let url: String
    public let from: String
    public let username: String?
    public let password: String?
    public let timeout: Duration
    /// Loopback test servers speak plain SMTP; everything else must use TLS.
    public let requireTLS: Bool

    private static let queue = DispatchQueue(label: "mapvest.smtp", attributes: .concurrent)

    public init(
        url: String, from: String, username: String? = nil, password: String? = nil, timeout: Duration = .seconds(15),
        requireTLS: Bool = true
    ) {
        self.url = url
        self.from = from
        self.username = username
        self.password = password
        self.timeout = timeout
        self.requireTLS = requireTLS
    }

    /// Header values lose CR and LF, so a caller-supplied subject or address cannot inject headers.
    static func headerSafe(_ value: String) -> String {
        String(value.unicodeScalars.filter { $0 != "\r" && $0 != "\n" }.map(Character.init))
    }

    /// The bare address of `Name <address>` (or the trimmed text), for the SMTP envelope.
    static func address(_ value: String) -> String {
        let safe = headerSafe(value)
        if let open = safe.lastIndex(of: "<"), let close = safe.lastIndex(of: ">"), open < close {
            return String(safe[safe.index(after: open)..<close])
        }
        return safe.trimmingCharacters(in: .whitespaces)
    }

    /// The RFC 5322 message as sent.
    static func message(from: String, to: String, subject: String, body: String, date: Date) -> [UInt8] {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        let normalizedBody = body.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(
            of: "\n", with: "\r\n")
        let text =
            "From: \(headerSafe(from))\r\nTo: \(headerSafe(to))\r\nSubject: \(headerSafe(subject))\r\n"
            + "Date: \(formatter.string(from: date))\r\nMessage-ID: <\(UUID().uuidString.lowercased())@mapvest>\r\n"
            + "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\(normalizedBody)\r\n"
        return Array(text.utf8)
    }

    public func send(to recipient: String, subject: String, body: String) async throws(HTTPClientError) {
        let payload = Self.message(from: from, to: recipient, subject: subject, body: body, date: Date())
        let mailer = self
        let result: Result<Void, HTTPClientError> = await withCheckedContinuation { done in
            Self.queue.async { done.resume(returning: mailer.perform(to: recipient, payload: payload)) }
        }
        try result.get()
    }

    private func failure(_ kind: HTTPClientError.Kind, _ code: CURLcode, _ detail: String) -> HTTPClientError {
        HTTPClientError(kind: kind, code: Int(code.rawValue), method: "SMTP", url: url, detail: detail)
    }

    /// One blocking SMTP transaction; runs on `queue`.
    private func perform(to recipient: String, payload: [UInt8]) -> Result<Void, HTTPClientError> {
        guard let easy = CurlEasy.make() else { return .failure(failure(.other, CURLE_FAILED_INIT, "no curl handle")) }
        let recipients = CurlHeaderList()
        guard recipients.append("<\(Self.address(recipient))>") else {
            return .failure(failure(.other, CURLE_OUT_OF_MEMORY, "recipient list"))
        }
        let source = UploadSource(payload)
        let ok =
            easy.set(CURLOPT_URL, string: url) && easy.set(CURLOPT_PROTOCOLS_STR, string: "smtp,smtps")
            && easy.set(CURLOPT_MAIL_FROM, string: "<\(Self.address(from))>")
            && easy.set(CURLOPT_MAIL_RCPT, pointer: recipients.raw.map { UnsafeRawPointer($0) })
            && easy.set(CURLOPT_UPLOAD, 1)
            && easy.set(CURLOPT_USE_SSL, Int(requireTLS ? CURLUSESSL_ALL.rawValue : CURLUSESSL_NONE.rawValue))
            && easy.set(CURLOPT_TIMEOUT_MS, Int(timeout.components.seconds * 1000))
            && easy.set(CURLOPT_CONNECTTIMEOUT_MS, 5000) && easy.set(CURLOPT_NOSIGNAL, 1)
            && mapvest_curl_easy_setopt_read_callback(easy.raw, readPayload) == CURLE_OK
            && easy.set(CURLOPT_READDATA, pointer: UnsafeRawPointer(Unmanaged.passUnretained(source).toOpaque()))
            && (username.map { easy.set(CURLOPT_USERNAME, string: $0) } ?? true)
            && (password.map { easy.set(CURLOPT_PASSWORD, string: $0) } ?? true)
        guard ok else { return .failure(failure(.other, CURLE_BAD_FUNCTION_ARGUMENT, "smtp options")) }
        let code = withExtendedLifetime((source, recipients)) { curl_easy_perform(easy.raw) }
        switch code {
        case CURLE_OK: return .success(())
        case CURLE_OPERATION_TIMEDOUT: return .failure(failure(.timeout, code, easy.errorMessage))
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST:
            return .failure(failure(.connect, code, easy.errorMessage))
        default: return .failure(failure(.other, code, easy.errorMessage))
        }
    }
}

/// The message bytes libcurl reads through `readPayload`.
private final class UploadSource {
    let bytes: [UInt8]
    var offset = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
}

private func readPayload(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let buffer, let context else { return 0 }
    let source = Unmanaged<UploadSource>.fromOpaque(context).takeUnretainedValue()
    let n = min(size * count, source.bytes.count - source.offset)
    guard n > 0 else { return 0 }
    source.bytes.withUnsafeBufferPointer { all in
        guard let base = all.baseAddress else { return }
        UnsafeMutableRawPointer(buffer).copyMemory(from: base + source.offset, byteCount: n)
    }
    source.offset += n
    return n
}
