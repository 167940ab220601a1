import MoneyCore
import Testing

/// Reading Stripe events into instructions, and the per-subscription order rule.
struct StripeEventTests {
    func makeEvent(_ type: String, _ object: String, created: Int = 100) -> StripeEvent? {
        StripeEvent.decode(
            Array(
                #"{"id":"evt_1","object":"event","type":"\#(type)","created":\#(created),"data":{"object":\#(object)}}"#
                    .utf8))
    }

    @Test func aCompletedSubscriptionCheckoutActivates() throws {
        let event = try #require(
            makeEvent(
                "checkout.session.completed",
                #"{"id":"cs_1","object":"checkout.session","mode":"subscription","customer":"cus_1","subscription":"sub_1","client_reference_id":"usr_a","metadata":{"userId":"usr_b"},"amount_total":1999}"#
            ))
        #expect(event.created == 100)
        let instruction = try #require(BillingInstruction(event))
        #expect(instruction.change == .activate)
        #expect(instruction.subscriptionId == "sub_1")
        #expect(instruction.customerId == "cus_1")
        #expect(instruction.userId == "usr_b")
    }

    @Test func theClientReferenceIsTheFallbackUser() throws {
        let event = try #require(
            makeEvent(
                "checkout.session.completed",
                #"{"mode":"subscription","customer":"cus_1","subscription":"sub_1","client_reference_id":"usr_a","metadata":{}}"#
            ))
        #expect(BillingInstruction(event)?.userId == "usr_a")
    }

    @Test func aPaymentCheckoutIsIgnored() throws {
        let event = try #require(makeEvent("checkout.session.completed", #"{"mode":"payment","subscription":null}"#))
        #expect(BillingInstruction(event) == nil)
    }

    @Test func subscriptionStatusesMapToChanges() throws {
        for (status, change) in [
            ("active", SubscriptionChange.activate), ("trialing", .activate), ("past_due", .lapse),
            ("incomplete", .lapse), ("unpaid", .lapse), ("canceled", .lapse),
        ] {
            let event = try #require(
                makeEvent("customer.subscription.updated", #"{"id":"sub_9","status":"\#(status)","customer":"cus_9"}"#))
            let instruction = try #require(BillingInstruction(event))
            #expect(instruction.change == change)
            #expect(instruction.subscriptionId == "sub_9")
            #expect(instruction.userId == nil)
        }
        let deleted = try #require(makeEvent("customer.subscription.deleted", #"{"id":"sub_9","status":"active"}"#))
        #expect(BillingInstruction(deleted)?.change == .end)
    }

    @Test func otherEventsAndNonEventsAreIgnored() throws {
        let invoice = try #require(makeEvent("invoice.paid", #"{"id":"in_1"}"#))
        #expect(BillingInstruction(invoice) == nil)
        #expect(StripeEvent.decode(Array("not json".utf8)) == nil)
        #expect(StripeEvent.decode(Array(#"{"id":"","type":"x","data":{"object":{}}}"#.utf8)) == nil)
    }
}

struct SubscriptionStateTests {
    @Test func theFirstEventSetsTheState() {
        #expect(SubscriptionState.apply(.activate, at: 10, to: nil) == SubscriptionState(change: .activate, at: 10))
    }

    @Test func aLateOlderEventNeverMovesItBack() {
        let active = SubscriptionState(change: .activate, at: 20)
        #expect(SubscriptionState.apply(.lapse, at: 19, to: active) == nil)
        #expect(SubscriptionState.apply(.lapse, at: 21, to: active) == SubscriptionState(change: .lapse, at: 21))
    }

    @Test func anEndedSubscriptionStaysEnded() {
        let ended = SubscriptionState(change: .end, at: 30)
        #expect(SubscriptionState.apply(.activate, at: 31, to: ended) == nil)
        #expect(SubscriptionState.apply(.activate, at: 29, to: ended) == nil)
        #expect(SubscriptionState.apply(.end, at: 40, to: ended) == nil)
    }

    @Test func withinOneSecondEndBeatsActivateBeatsLapse() {
        let lapsed = SubscriptionState(change: .lapse, at: 50)
        #expect(SubscriptionState.apply(.activate, at: 50, to: lapsed) == SubscriptionState(change: .activate, at: 50))
        let active = SubscriptionState(change: .activate, at: 50)
        #expect(SubscriptionState.apply(.lapse, at: 50, to: active) == nil)
        #expect(SubscriptionState.apply(.activate, at: 50, to: active) == nil)
        #expect(SubscriptionState.apply(.end, at: 50, to: active) == SubscriptionState(change: .end, at: 50))
    }
}

struct CheckoutRulesTests {
    @Test func nativeChannelsNeedTheirProducts() {
        #expect(
            CheckoutChannel.choose(platform: "ios", appleProductId: "pro", playProductId: nil) == (.appleIAP, "pro"))
        #expect(CheckoutChannel.choose(platform: "ios", appleProductId: nil, playProductId: "p") == (.stripe, nil))
        #expect(
            CheckoutChannel.choose(platform: "android", appleProductId: "a", playProductId: "p") == (.googlePlay, "p"))
        #expect(CheckoutChannel.choose(platform: "web", appleProductId: "a", playProductId: "p") == (.stripe, nil))
        #expect(CheckoutChannel.choose(platform: nil, appleProductId: "a", playProductId: "p") == (.stripe, nil))
    }

    @Test func onlyMapvestHTTPSReturnURLsReachStripe() {
        let fallback = "https://mapvest.app/app"
        for url in ["https://mapvest.app", "https://mapvest.app/billing?ok=1", "https://www.mapvest.app/x"] {
            #expect(ReturnURL.choose(url, fallback: fallback) == url)
        }
        for url in [
            "mapvest://billing/success", "http://mapvest.app/x", "https://mapvest.app.evil.com/x",
            "https://evil.com/?https://mapvest.app", "https://mapvest.app/a b", "https://mapvest.app/#frag",
            "https://mapvest.appx",
        ] {
            #expect(ReturnURL.choose(url, fallback: fallback) == fallback)
        }
        #expect(ReturnURL.choose(nil, fallback: fallback) == fallback)
    }
}
