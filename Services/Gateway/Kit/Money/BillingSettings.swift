import Foundation
import Runtime

/// Billing configuration from the environment (docs/CONFIGURATION.md, Gateway). Keys are never logged.
struct BillingSettings: Sendable {
    /// `STRIPE_SECRET_KEY`.
    var secretKey: String?
    /// `STRIPE_PRICE_ID_MONTHLY`: the $19.99/month price.
    var priceId: String?
    /// `STRIPE_WEBHOOK_SECRET`: comma-separated, so a rotation can accept the old and the new secret at once.
    var webhookSecrets: [String]
    /// `STRIPE_SUCCESS_URL`, `STRIPE_CANCEL_URL`: where Stripe returns when the client gives no allowed URL.
    var successURL: String
    var cancelURL: String
    /// `STRIPE_API_URL`, default `https://api.stripe.com` (tests point it at a loopback fake).
    var apiURL: String
    /// `STRIPE_TIMEOUT_MS`, default 10 s: each Stripe call's limit.
    var timeout: Duration
    /// `APPLE_IAP_PRODUCT_ID`, `GOOGLE_PLAY_PRODUCT_ID`: native checkout channels when set.
    var appleProductId: String?
    var playProductId: String?

    static let defaultReturnURL = "https://mapvest.app/app"

    init(_ env: Environment) {
        secretKey = env.get("STRIPE_SECRET_KEY")
        priceId = env.get("STRIPE_PRICE_ID_MONTHLY")
        webhookSecrets =
            env.get("STRIPE_WEBHOOK_SECRET")?.split(separator: ",").map {
                String($0).trimmingCharacters(in: .whitespaces)
            }.filter { !$0.isEmpty } ?? []
        successURL = env.get("STRIPE_SUCCESS_URL") ?? Self.defaultReturnURL
        cancelURL = env.get("STRIPE_CANCEL_URL") ?? Self.defaultReturnURL
        apiURL = env.get("STRIPE_API_URL") ?? "https://api.stripe.com"
        timeout = env.milliseconds("STRIPE_TIMEOUT_MS", default: .seconds(10))
        appleProductId = env.get("APPLE_IAP_PRODUCT_ID")
        playProductId = env.get("GOOGLE_PLAY_PRODUCT_ID")
    }

    /// The settings Stripe Checkout and the portal need that are missing, by variable name.
    var missingForCheckout: [String] {
        (secretKey == nil ? ["STRIPE_SECRET_KEY"] : []) + (priceId == nil ? ["STRIPE_PRICE_ID_MONTHLY"] : [])
    }

    /// The settings the webhook needs that are missing, by variable name.
    var missingForWebhook: [String] { webhookSecrets.isEmpty ? ["STRIPE_WEBHOOK_SECRET"] : [] }
}
