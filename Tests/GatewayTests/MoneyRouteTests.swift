import Foundation
import HTTPServer
import MoneyCore
import Testing

@testable import GatewayKit

/// `GET /v1/entitlements`: the same state the quota guard reads, for users, devices and nobody.
struct EntitlementRouteTests {
    @Test func nobodySeesAFullUnspentTier() async {
        let response = await MoneyGateway().send("GET", "/v1/entitlements")
        #expect(response.status == 200)
        let body = response.object
        #expect(body["plan"] as? String == "none")
        #expect(body["remaining"] as? Int == 50)
        #expect(body["limit"] as? Int == 50)
        #expect(body["canGenerate"] as? Bool == true)
        #expect(body["canPersist"] as? Bool == false)
        #expect(body["subscribed"] as? Bool == false)
        #expect(body["freeForever"] as? Bool == false)
    }

    @Test func aDeviceSeesWhatItSpent() async {
        let gateway = MoneyGateway(entitlements: FakeEntitlements(usage: ["device:phone-1": 50]))
        let spent = await gateway.send("GET", "/v1/entitlements", headers: [("X-Device-Id", "phone-1")])
        #expect(spent.object["remaining"] as? Int == 0)
        #expect(spent.object["canGenerate"] as? Bool == false)
        let other = await gateway.send("GET", "/v1/entitlements", headers: [("X-Device-Id", "phone-2")])
        #expect(other.object["remaining"] as? Int == 50)
    }

    @Test func aSubscriberSeesTheirPlan() async throws {
        let gateway = MoneyGateway(
            entitlements: FakeEntitlements(
                accounts: [
                    GatewayUnderTest.userId: AccountFacts(storedPlan: .subscribed, stripeSubscriptionId: "sub_1")
                ],
                usage: [GatewayUnderTest.userId: 70]))
        let response = await gateway.send(
            "GET", "/v1/entitlements", headers: [("Authorization", try gateway.bearer())])
        #expect(response.status == 200)
        #expect(response.object["plan"] as? String == "subscribed")
        #expect(response.object["subscribed"] as? Bool == true)
        #expect(response.object["remaining"] as? Int == 50)
        #expect(response.object["canPersist"] as? Bool == true)
    }

    @Test func aBadBearerIsAnonymousNotRefused() async {
        let response = await MoneyGateway().send(
            "GET", "/v1/entitlements", headers: [("Authorization", "Bearer nonsense"), ("X-Device-Id", "d")])
        #expect(response.status == 200)
        #expect(response.object["canPersist"] as? Bool == false)
    }

    @Test func aStoreFailureIsA500WithoutDetail() async {
        let response = await MoneyGateway(entitlements: FakeEntitlements(fails: true)).send("GET", "/v1/entitlements")
        #expect(response.status == 500)
        #expect(response.errorMessage == "internal error")
    }
}

/// Settings and the Robinhood MCP link.
struct SettingsRouteTests {
    let token = "rh_live_0123456789abcdefXYZW"

    @Test func settingsNeedABearer() async {
        let gateway = MoneyGateway()
        for (method, path) in [
            ("GET", "/v1/settings"), ("POST", "/v1/settings/robinhood-mcp"), ("DELETE", "/v1/settings/robinhood-mcp"),
            ("GET", "/v1/robinhood"),
        ] {
            #expect(await gateway.send(method, path).status == 401)
        }
    }

    @Test func settingsShowTheAccountAndNoLinkAtFirst() async throws {
        let gateway = MoneyGateway()
        let response = await gateway.send("GET", "/v1/settings", headers: [("Authorization", try gateway.bearer())])
        #expect(response.status == 200)
        let user = try #require(response.object["user"] as? [String: Any])
        #expect(user["id"] as? String == GatewayUnderTest.userId)
        #expect(user["email"] as? String == GatewayUnderTest.user.email)
        #expect(user["scopes"] as? [String] == ["user"])
        #expect(response.object["robinhoodMcp"] as? [String: Bool] == ["configured": false])
        #expect((response.object["note"] as? String)?.contains("never submit broker orders") == true)
    }

    @Test func linkingStoresASealedKeyAndShowsOnlyItsPrints() async throws {
        let gateway = MoneyGateway()
        let auth = ("Authorization", try gateway.bearer())
        let saved = await gateway.send(
            "POST", "/v1/settings/robinhood-mcp", headers: [auth, ("Content-Type", "application/json")],
            body: #"{"token":"  \#(token)  "}"#)
        #expect(saved.status == 200)
        #expect(saved.object["ok"] as? Bool == true)
        let status = try #require(saved.object["robinhoodMcp"] as? [String: Any])
        #expect(status["configured"] as? Bool == true)
        #expect(status["last4"] as? String == "XYZW")
        let fingerprint = try #require(status["fingerprint"] as? String)
        #expect(fingerprint.count == 16)
        #expect(!String(decoding: saved.body, as: UTF8.self).contains(token))
        let stored = try #require(gateway.links.ciphertext(GatewayUnderTest.userId))
        #expect(stored.hasPrefix("v1."))
        #expect(stored.split(separator: ".").count == 4)
        #expect(!stored.contains(token))

        let link = await gateway.send("GET", "/v1/robinhood", query: "ticker=%20aapl", headers: [auth])
        #expect(link.status == 200)
        #expect(link.object["ticker"] as? String == "AAPL")
        #expect(link.object["configured"] as? Bool == true)
        #expect(link.object["linkOut"] as? String == "https://robinhood.com/us/en/stocks/AAPL/")

        let cleared = await gateway.send("DELETE", "/v1/settings/robinhood-mcp", headers: [auth])
        #expect(cleared.status == 200)
        #expect(cleared.object["robinhoodMcp"] as? [String: Bool] == ["configured": false])
        let again = await gateway.send("DELETE", "/v1/settings/robinhood-mcp", headers: [auth])
        #expect(again.status == 200)
        let refused = await gateway.send("GET", "/v1/robinhood", query: "ticker=AAPL", headers: [auth])
        #expect(refused.status == 403)
        #expect(refused.errorMessage == "robinhood_mcp_not_configured")
        #expect(refused.object["note"] as? String == "Connect a Robinhood MCP key under Home → settings first.")
    }

    @Test func badTokensAndTickersAreRefusedByName() async throws {
        let gateway = MoneyGateway()
        let auth = ("Authorization", try gateway.bearer())
        for body in [
            #"{"token":"short"}"#, #"{"token":12}"#, "{}", "not json",
            #"{"token":"\#(String(repeating: "a", count: 8001))"}"#,
        ] {
            let response = await gateway.send("POST", "/v1/settings/robinhood-mcp", headers: [auth], body: body)
            #expect(response.status == 400)
            #expect(response.errorMessage == "token required (20–8000 chars)")
        }
        for query in [nil, "ticker=", "ticker=1ABC", "ticker=TOOLONG"] {
            let response = await gateway.send("GET", "/v1/robinhood", query: query, headers: [auth])
            #expect(response.status == 400)
            #expect(response.errorMessage == "ticker required")
        }
    }
}
