import FoundationEssentials
import HTTPServer
import Synchronization

/// A loopback Stripe API for the two calls the gateway makes: `POST /v1/checkout/sessions` and
/// `POST /v1/billing_portal/sessions`. It speaks Stripe's wire shape: form-encoded bodies, `Authorization: Bearer
/// <secret key>` (401 with Stripe's error object otherwise), objects with `id`/`object`/`url`, and `Idempotency-Key`
/// replays (the same key answers the first response again; the same key with another body is a 400
/// `idempotency_error`, as Stripe does).
public final class FakeStripe: Sendable {
    public let upstream: FakeUpstream
    public let secretKey: String

    /// Answers by idempotency key, and the object counter; shared with the server's handler.
    private final class Ledger: Sendable {
        let replays = Mutex<[String: (body: [UInt8], response: HTTPResponse)]>([:])
        let sequence = Mutex(0)
    }

    public init(secretKey: String = "sk_test_fake") throws {
        let ledger = Ledger()
        self.secretKey = secretKey
        upstream = try FakeUpstream { request in
            guard request.head.headers["Authorization"] == "Bearer " + secretKey else {
                return Self.error(401, type: "invalid_request_error", "Invalid API Key provided")
            }
            guard request.method == "POST",
                request.head.headers["Content-Type"]?.hasPrefix("application/x-www-form-urlencoded") == true
            else { return Self.error(400, type: "invalid_request_error", "Expected a form-encoded POST") }
            let key = request.head.headers["Idempotency-Key"]
            if let key, let earlier = ledger.replays.withLock({ $0[key] }) {
                guard earlier.body == request.body else {
                    return Self.error(
                        400, type: "idempotency_error",
                        "Keys for idempotent requests can only be used with the same parameters they were first used with."
                    )
                }
                return earlier.response
            }
            let form = QueryString.parse(Substring(String(decoding: request.body, as: UTF8.self)))
            let n = ledger.sequence.withLock {
                $0 += 1
                return $0
            }
            let response = Self.answer(path: request.path, form: form, n: n)
            if let key { ledger.replays.withLock { $0[key] = (request.body, response) } }
            return response
        }
    }

    public var baseURL: String { upstream.baseURL }
    public var requests: [FakeUpstream.RecordedRequest] { upstream.requests }
    public func shutdown() async { await upstream.shutdown() }

    /// The hosted page Stripe returns for a session id.
    public static func checkoutURL(_ id: String) -> String { "https://checkout.stripe.com/c/pay/" + id }

    private static func answer(path: String, form: [String: String], n: Int) -> HTTPResponse {
        switch path {
        case "/v1/checkout/sessions":
            for field in ["mode", "line_items[0][price]", "success_url", "cancel_url"] where form[field] == nil {
                return error(400, type: "invalid_request_error", "Missing required param: \(field).", param: field)
            }
            let id = "cs_test_\(n)"
            var object: [String: String?] = [
                "id": id, "object": "checkout.session", "mode": form["mode"], "url": checkoutURL(id),
                "client_reference_id": form["client_reference_id"], "customer": form["customer"],
                "customer_email": form["customer_email"], "success_url": form["success_url"],
                "cancel_url": form["cancel_url"], "status": "open",
            ]
            object["subscription"] = .some(nil)
            return json(200, object)
        case "/v1/billing_portal/sessions":
            guard let customer = form["customer"] else {
                return error(400, type: "invalid_request_error", "Missing required param: customer.", param: "customer")
            }
            let id = "bps_test_\(n)"
            return json(
                200,
                [
                    "id": id, "object": "billing_portal.session", "customer": customer,
                    "return_url": form["return_url"], "url": "https://billing.stripe.com/p/session/" + id,
                ])
        default:
            return error(404, type: "invalid_request_error", "Unrecognized request URL (POST: \(path)).")
        }
    }

    private static func json(_ status: Int, _ object: [String: String?]) -> HTTPResponse {
        .json(status, object)
    }

    private static func error(_ status: Int, type: String, _ message: String, param: String? = nil) -> HTTPResponse {
        .json(status, ["error": ["type": type, "message": message, "param": param]])
    }
}
