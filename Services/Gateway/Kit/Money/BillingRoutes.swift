import Contracts
import Crypto
import FoundationEssentials
import HTTPClient
import HTTPServer
import MoneyCore
import Postgres
import Runtime

/// `POST /v1/billing/checkout`, `POST /v1/billing/portal` (bearer) and `POST /v1/billing/webhook` (Stripe, signed):
/// clients get a Stripe-hosted URL or a native product id, never a URL they make up; the webhook is the only way a
/// Stripe plan goes up or down.
struct BillingRoutes: Sendable {
    let settings: BillingSettings
    /// Nil when `STRIPE_SECRET_KEY` is unset.
    let stripe: StripeClient?
    let accounts: any BillingAccounts
    let lookups: LookupDeadline
    let logger: Logger
    /// Unix seconds now (tests move it).
    var now: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }

    struct CheckoutBody: Decodable {
        let platform: String?
        let successUrl: String?
        let cancelUrl: String?

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            platform = try? c.decodeIfPresent(String.self, forKey: .platform)
            successUrl = try? c.decodeIfPresent(String.self, forKey: .successUrl)
            cancelUrl = try? c.decodeIfPresent(String.self, forKey: .cancelUrl)
        }

        enum CodingKeys: String, CodingKey { case platform, successUrl, cancelUrl }
    }

    struct Checkout: Encodable {
        let channel: CheckoutChannel
        let url: String?
        let productId: String?
        let priceUsd = EntitlementState.priceUsd
        let interval = EntitlementState.interval
    }

    struct NotConfigured: Encodable {
        let error = "billing not configured"
        /// The settings that are missing, by name (never their values).
        let missing: [String]
    }

    var routes: [Route] {
        [
            Route("POST", "/v1/billing/checkout", auth: .required) { context in
                guard let user = context.caller.user else { return .error(.unknownUser) }
                return await checkout(user: user, body: context.request.body)
            },
            Route("POST", "/v1/billing/portal", auth: .required) { context in
                guard let user = context.caller.user else { return .error(.unknownUser) }
                return await portal(userId: user.id)
            },
            Route("POST", "/v1/billing/webhook") { context in
                await webhook(context.request)
            },
        ]
    }

    private func checkout(user: User, body: [UInt8]) async -> HTTPResponse {
        // An unreadable body is a web checkout, as the original treats it.
        let request = body.isEmpty ? nil : try? JSONDecoder().decode(CheckoutBody.self, from: Data(body))
        let (channel, productId) = CheckoutChannel.choose(
            platform: request?.platform, appleProductId: settings.appleProductId, playProductId: settings.playProductId)
        if channel != .stripe { return .json(200, Checkout(channel: channel, url: nil, productId: productId)) }
        guard let stripe, let priceId = settings.priceId else {
            return .json(503, NotConfigured(missing: settings.missingForCheckout))
        }
        let accounts = self.accounts
        do {
            let customer = try await lookups.run { try await accounts.stripeCustomer(userId: user.id) }
            var form: [(String, String)] = [
                ("mode", "subscription"), ("line_items[0][price]", priceId), ("line_items[0][quantity]", "1"),
                ("client_reference_id", user.id),
            ]
            form.append(customer.map { ("customer", $0) } ?? ("customer_email", user.email))
            form += [
                ("metadata[userId]", user.id), ("subscription_data[metadata][userId]", user.id),
                ("success_url", ReturnURL.choose(request?.successUrl, fallback: settings.successURL)),
                ("cancel_url", ReturnURL.choose(request?.cancelUrl, fallback: settings.cancelURL)),
            ]
            guard let url = try await stripe.checkoutSession(form) else {
                return .json(503, NotConfigured(missing: []))
            }
            return .json(200, Checkout(channel: .stripe, url: url, productId: nil))
        } catch {
            logger.error("stripe checkout failed", [LogKeys.error: .string("\(error)")])
            return .error(503, "billing unavailable")
        }
    }

    private func portal(userId: String) async -> HTTPResponse {
        guard let stripe else { return .json(503, NotConfigured(missing: ["STRIPE_SECRET_KEY"])) }
        let accounts = self.accounts
        do {
            guard let customer = try await lookups.run({ try await accounts.stripeCustomer(userId: userId) }) else {
                return .error(400, "no stripe customer on file — subscribe first")
            }
            guard let url = try await stripe.portalSession(customer: customer, returnURL: settings.successURL) else {
                return .error(503, "billing unavailable")
            }
            return .json(200, ["url": url])
        } catch {
            logger.error("stripe portal failed", [LogKeys.error: .string("\(error)")])
            return .error(503, "billing unavailable")
        }
    }

    /// Verifies the raw body before reading it; answers 200 to every verified delivery that is stored (applied,
    /// duplicate, stale or ignored) so Stripe stops, 400 to what no retry can fix, 500 when the store failed so
    /// Stripe retries.
    private func webhook(_ request: HTTPRequest) async -> HTTPResponse {
        guard settings.missingForWebhook.isEmpty else {
            return .json(503, NotConfigured(missing: settings.missingForWebhook))
        }
        let verifier = StripeSignature(
            secrets: settings.webhookSecrets.map { Array($0.utf8) }, mac: { Digest.hmacSHA256(key: $0, message: $1) })
        let signed: Int64
        switch verifier.verify(header: request.head.headers["Stripe-Signature"], body: request.body, now: now()) {
        case .success(let timestamp): signed = timestamp
        case .failure(let failure):
            logger.warning("stripe webhook refused", [LogKeys.reason: .string("\(failure)")])
            return .error(400, "invalid signature")
        }
        guard let event = StripeEvent.decode(request.body).map({ $0.stamped(signed) }) else {
            return .error(400, "invalid event")
        }
        let accounts = self.accounts
        do {
            let outcome = try await lookups.run { try await accounts.apply(event) }
            logger.info(
                "stripe event handled",
                [LogKeys.reason: .string(event.type + ": " + Self.label(outcome))])
            return .json(200, ["received": true])
        } catch {
            logger.error("stripe event not stored", [LogKeys.error: .string("\(error)")])
            return .error(.internalError)
        }
    }

    private static func label(_ outcome: WebhookOutcome) -> String {
        switch outcome {
        case .duplicate: "duplicate"
        case .ignored: "ignored"
        case .stale: "stale"
        case .applied(let userId, let change): userId == nil ? "no_user_\(change.rawValue)" : change.rawValue
        }
    }
}

extension StripeEvent {
    /// The event, dated by its signature when it carries no `created` of its own.
    fileprivate func stamped(_ signed: Int64) -> StripeEvent {
        var event = self
        if event.created <= 0 { event.created = signed }
        return event
    }
}

extension BillingRoutes {
    /// The routes over the real Stripe client and ledger; says at start which billing settings are missing.
    static func live(
        settings: BillingSettings, http: HTTPClient, db: PostgresPool, changes: PlanChanges, lookups: LookupDeadline,
        logger: Logger
    ) -> BillingRoutes {
        let missing = settings.missingForCheckout + settings.missingForWebhook
        if !missing.isEmpty {
            logger.warning("billing not configured", [LogKeys.reason: .string(missing.joined(separator: ","))])
        }
        return BillingRoutes(
            settings: settings,
            stripe: settings.secretKey.map {
                StripeClient(http: http, apiURL: settings.apiURL, secretKey: $0, timeout: settings.timeout)
            }, accounts: StripeLedger(db: db, changes: changes), lookups: lookups, logger: logger)
    }
}
