import Crypto
import Foundation
import HTTPClient
import HTTPServer
import MoneyCore
import Runtime
import Synchronization
import Testing
import UpstreamFakes

@testable import GatewayKit

/// Billing accounts in memory: a customer per user, and every event it was asked to apply.
final class MemoryBilling: BillingAccounts {
    let customers: [String: String]
    private let applied = Mutex<[StripeEvent]>([])

    init(customers: [String: String] = [:]) { self.customers = customers }

    var events: [StripeEvent] { applied.withLock { $0 } }

    func stripeCustomer(userId: String) async throws -> String? { customers[userId] }

    func apply(_ event: StripeEvent) async throws -> WebhookOutcome {
        applied.withLock { $0.append(event) }
        return .ignored
    }
}

/// Checkout, portal and webhook against the loopback Stripe, through the real edge.
struct BillingRouteTests {
    static let secret = "whsec_route_tests"
    static let now: Int64 = 1_790_000_000

    struct Setup {
        let gateway: MoneyGateway
        let billing: MemoryBilling
    }

    func gateway(
        env: [String: String], customers: [String: String] = [:], stripe: FakeStripe? = nil
    ) throws -> Setup {
        var values = env
        if let stripe { values["STRIPE_API_URL"] = stripe.baseURL }
        let settings = BillingSettings(Environment(values))
        let billing = MemoryBilling(customers: customers)
        let http = try HTTPClient.make(logger: Logger(label: "billing-tests", level: .error))
        let routes = BillingRoutes(
            settings: settings,
            stripe: settings.secretKey.map {
                StripeClient(http: http, apiURL: settings.apiURL, secretKey: $0, timeout: .seconds(5))
            }, accounts: billing, lookups: LookupDeadline(budget: .seconds(2)),
            logger: Logger(label: "billing-tests", level: .error), now: { Self.now })
        return Setup(gateway: MoneyGateway(extra: routes.routes), billing: billing)
    }

    static let configured = [
        "STRIPE_SECRET_KEY": "sk_test_fake", "STRIPE_PRICE_ID_MONTHLY": "price_monthly",
        "STRIPE_WEBHOOK_SECRET": secret,
    ]

    @Test func checkoutAsksStripeForASessionAndReturnsItsURL() async throws {
        let stripe = try FakeStripe()
        let setup = try gateway(env: Self.configured, stripe: stripe)
        let auth = ("Authorization", try setup.gateway.bearer())
        let response = await setup.gateway.send(
            "POST", "/v1/billing/checkout", headers: [auth],
            body:
                #"{"platform":"web","successUrl":"https://mapvest.app/done?x=1","cancelUrl":"mapvest://billing/cancel"}"#
        )
        await stripe.shutdown()
        #expect(response.status == 200)
        #expect(response.object["channel"] as? String == "stripe")
        #expect(response.object["url"] as? String == FakeStripe.checkoutURL("cs_test_1"))
        #expect(response.object["priceUsd"] as? Double == 19.99)
        #expect(response.object["interval"] as? String == "month")
        let sent = try #require(stripe.requests.first)
        #expect(sent.path == "/v1/checkout/sessions")
        #expect(sent.headers["Idempotency-Key"]?.isEmpty == false)
        let form = QueryString.parse(Substring(sent.bodyText))
        #expect(form["mode"] == "subscription")
        #expect(form["line_items[0][price]"] == "price_monthly")
        #expect(form["line_items[0][quantity]"] == "1")
        #expect(form["client_reference_id"] == GatewayUnderTest.userId)
        #expect(form["customer_email"] == GatewayUnderTest.user.email)
        #expect(form["customer"] == nil)
        #expect(form["metadata[userId]"] == GatewayUnderTest.userId)
        #expect(form["subscription_data[metadata][userId]"] == GatewayUnderTest.userId)
        #expect(form["success_url"] == "https://mapvest.app/done?x=1")
        #expect(form["cancel_url"] == "https://mapvest.app/app")
    }

    @Test func aKnownCustomerIsReusedAndAnUnreadableBodyIsAWebCheckout() async throws {
        let stripe = try FakeStripe()
        let setup = try gateway(env: Self.configured, customers: [GatewayUnderTest.userId: "cus_9"], stripe: stripe)
        let response = await setup.gateway.send(
            "POST", "/v1/billing/checkout", headers: [("Authorization", try setup.gateway.bearer())], body: "nope")
        await stripe.shutdown()
        #expect(response.status == 200)
        let form = QueryString.parse(Substring(try #require(stripe.requests.first).bodyText))
        #expect(form["customer"] == "cus_9")
        #expect(form["customer_email"] == nil)
    }

    @Test func nativePlatformsGetTheirProductWhenConfigured() async throws {
        var env = Self.configured
        env["APPLE_IAP_PRODUCT_ID"] = "mapvest_pro_monthly"
        let setup = try gateway(env: env)
        let auth = ("Authorization", try setup.gateway.bearer())
        let ios = await setup.gateway.send(
            "POST", "/v1/billing/checkout", headers: [auth], body: #"{"platform":"ios"}"#)
        #expect(ios.status == 200)
        #expect(ios.object["channel"] as? String == "apple_iap")
        #expect(ios.object["productId"] as? String == "mapvest_pro_monthly")
        #expect(ios.object["url"] == nil)
    }

    @Test func missingKeysAreA503NamingThem() async throws {
        let setup = try gateway(env: ["STRIPE_SECRET_KEY": "sk_test_fake"])
        let auth = ("Authorization", try setup.gateway.bearer())
        let checkout = await setup.gateway.send("POST", "/v1/billing/checkout", headers: [auth])
        #expect(checkout.status == 503)
        #expect(checkout.errorMessage == "billing not configured")
        #expect(checkout.object["missing"] as? [String] == ["STRIPE_PRICE_ID_MONTHLY"])
        let webhook = await setup.gateway.send("POST", "/v1/billing/webhook", body: "{}")
        #expect(webhook.status == 503)
        #expect(webhook.object["missing"] as? [String] == ["STRIPE_WEBHOOK_SECRET"])
        let bare = try gateway(env: [:])
        let portal = await bare.gateway.send(
            "POST", "/v1/billing/portal", headers: [("Authorization", try bare.gateway.bearer())])
        #expect(portal.status == 503)
        #expect(portal.object["missing"] as? [String] == ["STRIPE_SECRET_KEY"])
    }

    @Test func billingNeedsABearer() async throws {
        let setup = try gateway(env: Self.configured)
        #expect(await setup.gateway.send("POST", "/v1/billing/checkout").status == 401)
        #expect(await setup.gateway.send("POST", "/v1/billing/portal").status == 401)
    }

    @Test func thePortalNeedsACustomer() async throws {
        let stripe = try FakeStripe()
        let none = try gateway(env: Self.configured, stripe: stripe)
        let refused = await none.gateway.send(
            "POST", "/v1/billing/portal", headers: [("Authorization", try none.gateway.bearer())])
        #expect(refused.status == 400)
        #expect(refused.errorMessage == "no stripe customer on file — subscribe first")
        let known = try gateway(env: Self.configured, customers: [GatewayUnderTest.userId: "cus_1"], stripe: stripe)
        let portal = await known.gateway.send(
            "POST", "/v1/billing/portal", headers: [("Authorization", try known.gateway.bearer())])
        await stripe.shutdown()
        #expect(portal.status == 200)
        #expect((portal.object["url"] as? String)?.hasPrefix("https://billing.stripe.com/") == true)
        let form = QueryString.parse(Substring(try #require(stripe.requests.last).bodyText))
        #expect(form["customer"] == "cus_1")
        #expect(form["return_url"] == "https://mapvest.app/app")
    }

    @Test func aStripeFailureIsA503WithoutItsDetail() async throws {
        let stripe = try FakeStripe(secretKey: "sk_test_other")
        let setup = try gateway(env: Self.configured, stripe: stripe)
        let response = await setup.gateway.send(
            "POST", "/v1/billing/checkout", headers: [("Authorization", try setup.gateway.bearer())])
        await stripe.shutdown()
        #expect(response.status == 503)
        #expect(response.errorMessage == "billing unavailable")
    }

    static func signed(_ body: String, at t: Int64, secret: String = secret) -> String {
        "t=\(t),v1=" + Digest.hex(Digest.hmacSHA256(key: Array(secret.utf8), message: Array("\(t).\(body)".utf8)))
    }

    @Test func theWebhookAppliesOnlyVerifiedEvents() async throws {
        let setup = try gateway(env: Self.configured)
        let body =
            #"{"id":"evt_1","type":"customer.subscription.deleted","created":5,"data":{"object":{"id":"sub_1"}}}"#
        let ok = await setup.gateway.send(
            "POST", "/v1/billing/webhook", headers: [("Stripe-Signature", Self.signed(body, at: Self.now))], body: body)
        #expect(ok.status == 200)
        #expect(ok.object["received"] as? Bool == true)
        for header in [
            Self.signed(body, at: Self.now, secret: "whsec_wrong"), Self.signed(body, at: Self.now - 600), "t=1",
        ] {
            let refused = await setup.gateway.send(
                "POST", "/v1/billing/webhook", headers: [("Stripe-Signature", header)], body: body)
            #expect(refused.status == 400)
            #expect(refused.errorMessage == "invalid signature")
        }
        let unsigned = await setup.gateway.send("POST", "/v1/billing/webhook", body: body)
        #expect(unsigned.status == 400)
        let junk = "[1,2]"
        let notAnEvent = await setup.gateway.send(
            "POST", "/v1/billing/webhook", headers: [("Stripe-Signature", Self.signed(junk, at: Self.now))], body: junk)
        #expect(notAnEvent.status == 400)
        #expect(notAnEvent.errorMessage == "invalid event")
        #expect(setup.billing.events.map(\.id) == ["evt_1"])
        #expect(setup.billing.events.first?.created == 5)
    }
}
