import Foundation
import MoneyCore
import Testing

/// The entitlement arithmetic the paywall shows and the quota guard enforces (one computation for both).
struct EntitlementStateTests {
    @Test func nobodyHasTheWholeFreeTier() {
        let state = EntitlementState(account: nil, used: 0)
        #expect(
            state
                == EntitlementState.expected(
                    plan: .none, remaining: 50, freeForever: false, subscribed: false, canGenerate: true,
                    canPersist: false))
    }

    @Test func aGuestSpendsDownToZeroAndNeverBelow() {
        #expect(EntitlementState(account: nil, used: 49).remaining == 1)
        #expect(EntitlementState(account: nil, used: 49).canGenerate)
        let spent = EntitlementState(account: nil, used: 50)
        #expect(spent.remaining == 0)
        #expect(!spent.canGenerate)
        #expect(EntitlementState(account: nil, used: 75).remaining == 0)
        #expect(EntitlementState(account: nil, used: -3).remaining == 50)
    }

    @Test func aSignedInFreeUserCanPersist() {
        let state = EntitlementState(account: AccountFacts(), used: 10)
        #expect(state.plan == .none)
        #expect(state.remaining == 40)
        #expect(state.canPersist)
        #expect(!state.unlimited)
    }

    @Test func aSubscriberIsUnlimitedWhateverTheCount() {
        for facts in [
            AccountFacts(storedPlan: .subscribed), AccountFacts(stripeSubscriptionId: "sub_1"),
            AccountFacts(appleOriginalTransactionId: "2000000"),
        ] {
            let state = EntitlementState(account: facts, used: 500)
            #expect(state.subscribed)
            #expect(state.remaining == 50)
            #expect(state.canGenerate)
        }
        #expect(EntitlementState(account: AccountFacts(storedPlan: .subscribed), used: 0).plan == .subscribed)
    }

    @Test func freeForeverBeatsTheStoredPlan() {
        let granted = EntitlementState(
            account: AccountFacts(storedPlan: .subscribed, freeForeverGrant: true, stripeSubscriptionId: "sub_1"),
            used: 80)
        #expect(granted.plan == .freeForever)
        #expect(granted.freeForever)
        #expect(granted.subscribed)
        #expect(granted.canGenerate)
        let staff = EntitlementState(account: AccountFacts(internalAccount: true), used: 80)
        #expect(staff.plan == .freeForever)
        #expect(staff.remaining == 50)
    }

    @Test func encodesTheContractsFields() throws {
        let json = try JSONSerialization.jsonObject(
            with: JSONEncoder().encode(EntitlementState(account: AccountFacts(freeForeverGrant: true), used: 3)))
        let object = try #require(json as? [String: Any])
        #expect(
            Set(object.keys)
                == ["plan", "remaining", "limit", "freeForever", "subscribed", "canGenerate", "canPersist"])
        #expect(object["plan"] as? String == "free_forever")
        #expect(object["limit"] as? Int == 50)
    }
}

extension EntitlementState {
    /// The state spelled out field by field, to compare against the computed one.
    static func expected(
        plan: Plan, remaining: Int, freeForever: Bool, subscribed: Bool, canGenerate: Bool, canPersist: Bool
    ) -> EntitlementState {
        var state = EntitlementState(account: nil, used: 0)
        state.plan = plan
        state.remaining = remaining
        state.freeForever = freeForever
        state.subscribed = subscribed
        state.canGenerate = canGenerate
        state.canPersist = canPersist
        return state
    }
}

/// The Robinhood link's input rules and what of a token is ever shown.
struct RobinhoodLinkTests {
    @Test func tokensAreTrimmedAndBounded() {
        #expect(RobinhoodLink.token(nil) == nil)
        #expect(RobinhoodLink.token(String(repeating: "a", count: 19)) == nil)
        #expect(
            RobinhoodLink.token("  " + String(repeating: "a", count: 20) + "\n") == String(repeating: "a", count: 20))
        #expect(RobinhoodLink.token(String(repeating: "b", count: 8000))?.count == 8000)
        #expect(RobinhoodLink.token(String(repeating: "b", count: 8001)) == nil)
        #expect(RobinhoodLink.token("   " + String(repeating: " ", count: 30)) == nil)
    }

    @Test func onlyTheLastFourAndAFingerprintAreShown() {
        #expect(RobinhoodLink.last4("rh-token-abcdefghijkl-WXYZ") == "WXYZ")
        #expect(RobinhoodLink.fingerprint(sha256: [0x00, 0x0f, 0xa0, 0xff, 1, 2, 3, 4, 5, 6]) == "000fa0ff01020304")
    }

    @Test func tickersAreUpperCasedAndChecked() {
        #expect(RobinhoodLink.ticker(" brk.b ") == "BRK.B")
        #expect(RobinhoodLink.ticker("AAPL") == "AAPL")
        #expect(RobinhoodLink.ticker("") == nil)
        #expect(RobinhoodLink.ticker(nil) == nil)
        #expect(RobinhoodLink.ticker("1AB") == nil)
        #expect(RobinhoodLink.ticker("ABCDEFG") == nil)
        #expect(RobinhoodLink.ticker("AB-C") == nil)
        #expect(RobinhoodLink.linkOut(ticker: "AAPL") == "https://robinhood.com/us/en/stocks/AAPL/")
    }
}
