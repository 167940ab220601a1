import Testing

@testable import Tracing

struct RedactionTests {
    @Test(arguments: [
        "http.request.header.authorization", "auth.code", "sign_in_code", "user.email", "push.token", "push_token_id",
        "expo.delivery_id", "notification.title", "notification.body", "push.envelope", "identify.photo",
        "url.query", "http.request.header.cookie", "openrouter.api_key",
    ])
    func dropsAttributesWhoseKeyNamesASecret(_ key: String) {
        #expect(!Redaction.allows(key: key))
        let (kept, dropped) = Redaction.apply([Attribute(key, "anything"), Attribute("http.route", "/v1/identify")])
        #expect(kept == [Attribute("http.route", "/v1/identify")])
        #expect(dropped == 1)
    }

    @Test func keepsTheConventionsKeys() {
        for key in [
            "http.response.status_code", "http.request.method", "http.route", "messaging.system",
            "messaging.destination.name", "messaging.kafka.offset", "db.system", "db.operation.name", "server.address",
            "error.type",
        ] {
            #expect(Redaction.allows(key: key), "\(key)")
        }
    }

    @Test(arguments: [
        ("Bearer eyJhbGciOiJIUzI1NiJ9.e30.x", "Bearer [redacted]"),
        ("sent to ana.silva@example.com today", "sent to [redacted] today"),
        ("token ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx] refused", "token [redacted] refused"),
        ("code 482913 expired", "code [redacted] expired"),
        ("/v1/auth/verify?email=a@b.co&code=123456", "/v1/auth/verify?[redacted]"),
        ("delivery 0b6f2a4e-3c1d-4f7e-9a8b-5c6d7e8f9a0b failed", "delivery [redacted] failed"),
        ("sk-or-v1-4f3a9b2c8d7e6f5a4b3c2d1e0f", "[redacted]"),
        ("id=ptk_9Zq3rT7mW2xK8vB4nL", "[redacted]"),
        ("session eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c3JfMSJ9.abc", "session [redacted]"),
    ])
    func scrubsSecretsOutOfText(_ input: String, _ expected: String) {
        #expect(Redaction.scrub(input) == expected)
    }

    @Test func leavesOrdinaryTextAlone() {
        for text in [
            "POST /v1/identify", "mapvest.identify.commands", "identify", "upstream answered 503", "GET",
            "/v1/tickers/{ticker}/page", "postgres: connection refused",
            "mapvest.gateway.replies.test-host-21739.v1 publish", "SELECT identify.user_finds", "HTTP/1.1 answered 503",
        ] {
            #expect(Redaction.scrub(text) == text)
        }
    }
}
