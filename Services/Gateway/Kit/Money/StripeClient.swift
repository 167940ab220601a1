import Crypto
import FoundationEssentials
import HTTPClient

/// The two Stripe calls the gateway makes, through the binary's HTTP client: form-encoded POSTs under the secret
/// key, each with an `Idempotency-Key` that a retry of the same call reuses.
struct StripeClient: Sendable {
    let http: HTTPClient
    let apiURL: String
    let secretKey: String
    let timeout: Duration

    /// A Stripe call that failed: its HTTP status (0 when no answer came) and Stripe's error type, never the key.
    struct Failure: Error, CustomStringConvertible {
        let status: Int
        let type: String?
        var description: String { "stripe answered \(status)" + (type.map { " (\($0))" } ?? "") }
    }

    /// Creates a Checkout Session; its hosted page URL, nil when Stripe gave none.
    func checkoutSession(_ form: [(String, String)]) async throws -> String? {
        try await post("/v1/checkout/sessions", form).url
    }

    /// Creates a customer portal session; its URL.
    func portalSession(customer: String, returnURL: String) async throws -> String? {
        try await post("/v1/billing_portal/sessions", [("customer", customer), ("return_url", returnURL)]).url
    }

    private struct Session: Decodable { let url: String? }
    private struct ErrorBody: Decodable {
        struct Detail: Decodable { let type: String? }
        let error: Detail?
    }

    /// One POST; a connection failure is retried once with the same idempotency key, so Stripe applies it once.
    private func post(_ path: String, _ form: [(String, String)]) async throws -> Session {
        let request = HTTPClientRequest(
            method: "POST", url: apiURL + path,
            headers: [
                ("Authorization", "Bearer " + secretKey), ("Content-Type", "application/x-www-form-urlencoded"),
                ("Idempotency-Key", Digest.uuid()), ("Stripe-Version", "2024-06-20"),
            ], body: Array(Self.encode(form).utf8), timeout: timeout)
        let response = try await send(request)
        guard (200..<300).contains(response.status) else {
            let type = (try? JSONDecoder().decode(ErrorBody.self, from: Data(response.body)))?.error?.type
            throw Failure(status: response.status, type: type)
        }
        guard let session = try? JSONDecoder().decode(Session.self, from: Data(response.body)) else {
            throw Failure(status: response.status, type: "unreadable body")
        }
        return session
    }

    /// Not inlined: inlined into `post`, this retry crashed the Swift 6 optimizer's coroutine split (signal 11 in
    /// `CoroSplit`, release builds only).
    @inline(never)
    private func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        do {
            return try await http.execute(request)
        } catch {
            guard error.isRetriable else { throw error }
            return try await http.execute(request)
        }
    }

    /// `application/x-www-form-urlencoded`, every byte outside the unreserved set percent-encoded (brackets too).
    static func encode(_ form: [(String, String)]) -> String {
        form.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    private static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }
}
