import Crypto
import Foundation
import HTTPClient
import HTTPServer
import Postgres
import Runtime
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// The paywall end to end through real processes, Postgres and the loopback Stripe: a spent free tier is a 402,
    /// checkout gives Stripe's session URL, only verified, fresh, first deliveries of a webhook event change the plan,
    /// and the plan lifts and restores the quota that identify and `GET /v1/entitlements` both read.
    @Suite struct PaywallTests {
        static let webhookSecret = "whsec_system_tests"

        static func signature(_ body: String, at t: Int64, secret: String = webhookSecret) -> String {
            "t=\(t),v1=" + Digest.hex(Digest.hmacSHA256(key: Array(secret.utf8), message: Array("\(t).\(body)".utf8)))
        }

        static func deliver(_ gateway: GatewayProcess, _ body: String, signature: String) async throws -> Int {
            try await SystemClient.send(
                gateway, "POST", "/v1/billing/webhook", json: body, headers: [("Stripe-Signature", signature)]
            ).status
        }

        static func count(_ db: PostgresPool, _ query: PostgresQuery) async throws -> Int {
            try await db.query(query).first?.int("n") ?? -1
        }

        @Test func guestSpendsSignsInSubscribesAndCancels() async throws {
            let stripe = try FakeStripe()
            let identify = try await ServiceProcess.start("Identify")
            let gateway = try await GatewayProcess.start(
                instance: "test-paywall-\(UInt16.random(in: 0...9999))", limits: true,
                extra: [
                    "STRIPE_SECRET_KEY": stripe.secretKey, "STRIPE_PRICE_ID_MONTHLY": "price_test_monthly",
                    "STRIPE_WEBHOOK_SECRET": "whsec_previous, \(Self.webhookSecret)", "STRIPE_API_URL": stripe.baseURL,
                ])
            let db = try await PostgresPool.make(
                url: try TestEnvironment.require("POSTGRES_URL"), size: 1, logger: Logger(label: "t", sink: .memory()))
            defer {
                identify.kill()
                gateway.process.kill()
            }
            let at = [("X-Forwarded-For", EdgeGuardTests.ip())]
            let device = "paywall-\(UInt32.random(in: 0...UInt32.max))"
            let (token, userId) = try await SystemClient.signIn(gateway, headers: at)
            let user = at + [("Authorization", "Bearer \(token)")]
            try await SystemClient.waitForIdentify(gateway, auth: user)

            // A guest with one generation left spends it, then meets the paywall; entitlements agree.
            for _ in 0..<49 {
                _ = try await db.execute(
                    "INSERT INTO gateway.usage_events (device_id, kind) VALUES (\(device), 'identify')")
            }
            let last = try await SystemClient.identify(gateway, hint: "Starbucks", device: device, headers: at)
            #expect(last.status == 200)
            let paywall = try await SystemClient.identify(gateway, hint: "Starbucks", device: device, headers: at)
            #expect(paywall.status == 402)
            #expect(SystemClient.json(paywall)["code"] as? String == "quota_exceeded")
            let guest = SystemClient.json(
                try await SystemClient.send(gateway, "GET", "/v1/entitlements", headers: at + [("X-Device-Id", device)])
            )
            #expect(guest["remaining"] as? Int == 0)
            #expect(guest["canGenerate"] as? Bool == false)
            #expect(guest["canPersist"] as? Bool == false)

            // Signed in, the user's own tier is spent too (guest usage is not carried over; it is seeded).
            for _ in 0..<50 {
                _ = try await db.execute(
                    "INSERT INTO gateway.usage_events (user_id, kind) VALUES (\(userId), 'identify')")
            }
            #expect(try await SystemClient.identify(gateway, hint: "Nike", device: nil, headers: user).status == 402)

            // Checkout returns the session URL Stripe made, for this user.
            let checkout = try await SystemClient.send(
                gateway, "POST", "/v1/billing/checkout", json: #"{"platform":"web"}"#, headers: user)
            #expect(checkout.status == 200)
            let url = try #require(SystemClient.json(checkout)["url"] as? String)
            #expect(url.hasPrefix(FakeStripe.checkoutURL("cs_test_")))
            let sent = QueryString.parse(Substring(try #require(stripe.requests.last).bodyText))
            #expect(sent["client_reference_id"] == userId)
            #expect(stripe.requests.last?.headers["Idempotency-Key"] != nil)

            // One event, delivered twice (once concurrently), once with a bad signature and once 10 minutes stale.
            let now = Int64(Date().timeIntervalSince1970)
            let suffix = UInt32.random(in: 0...UInt32.max)
            let (eventId, subscription, customer) = ("evt_co_\(suffix)", "sub_\(suffix)", "cus_\(suffix)")
            let completed = """
                {"id":"\(eventId)","object":"event","type":"checkout.session.completed","created":\(now),"data":{"object":{"id":"cs_x","object":"checkout.session","mode":"subscription","customer":"\(customer)","subscription":"\(subscription)","client_reference_id":"\(userId)","metadata":{"userId":"\(userId)"}}}}
                """
            let good = Self.signature(completed, at: now)
            #expect(
                try await Self.deliver(
                    gateway, completed, signature: Self.signature(completed, at: now, secret: "whsec_wrong")) == 400)
            #expect(
                try await Self.deliver(gateway, completed, signature: Self.signature(completed, at: now - 600)) == 400)
            #expect(try await Self.deliver(gateway, completed, signature: good) == 200)
            async let again = Self.deliver(gateway, completed, signature: good)
            async let andAgain = Self.deliver(gateway, completed, signature: good)
            #expect(try await [again, andAgain] == [200, 200])
            let planChanges: PostgresQuery =
                "SELECT count(*) AS n FROM gateway.admin_log WHERE kind = 'plan_changed' AND subject = \(userId)"
            #expect(try await Self.count(db, planChanges) == 1)
            #expect(
                try await Self.count(db, "SELECT count(*) AS n FROM gateway.stripe_events WHERE id = \(eventId)") == 1)

            // Identify works again, and entitlements say subscribed.
            #expect(try await SystemClient.identify(gateway, hint: "Nike", device: nil, headers: user).status == 200)
            let paid = SystemClient.json(try await SystemClient.send(gateway, "GET", "/v1/entitlements", headers: user))
            #expect(paid["plan"] as? String == "subscribed")
            #expect(paid["subscribed"] as? Bool == true)
            #expect(paid["canGenerate"] as? Bool == true)

            // A late, older `past_due` changes nothing; the portal knows the customer.
            let late = """
                {"id":"evt_late_\(suffix)","type":"customer.subscription.updated","created":\(now - 30),"data":{"object":{"id":"\(subscription)","object":"subscription","status":"past_due","customer":"\(customer)"}}}
                """
            #expect(try await Self.deliver(gateway, late, signature: Self.signature(late, at: now)) == 200)
            #expect(try await Self.count(db, planChanges) == 1)
            let portal = try await SystemClient.send(gateway, "POST", "/v1/billing/portal", headers: user)
            #expect(portal.status == 200)
            #expect(QueryString.parse(Substring(try #require(stripe.requests.last).bodyText))["customer"] == customer)

            // The subscription is deleted: the plan ends and the quota is back.
            let deleted = """
                {"id":"evt_del_\(suffix)","type":"customer.subscription.deleted","created":\(now + 1),"data":{"object":{"id":"\(subscription)","object":"subscription","status":"canceled","customer":"\(customer)"}}}
                """
            #expect(try await Self.deliver(gateway, deleted, signature: Self.signature(deleted, at: now + 1)) == 200)
            #expect(try await Self.count(db, planChanges) == 2)
            let ended = SystemClient.json(
                try await SystemClient.send(gateway, "GET", "/v1/entitlements", headers: user))
            #expect(ended["plan"] as? String == "none")
            #expect(ended["subscribed"] as? Bool == false)
            #expect(ended["canGenerate"] as? Bool == false)
            #expect(try await SystemClient.identify(gateway, hint: "Nike", device: nil, headers: user).status == 402)
            await db.close()
            await stripe.shutdown()
        }
    }
}
