import Contracts
import Crypto
import Foundation
import HTTPClient
import Postgres
import Runtime
import TestSupport
import Testing

/// `/v1/push/*` end to end (docs/COMPATIBILITY.md#push-routes): HTTP → Gateway → Kafka → PushDispatcher → Kafka →
/// Gateway → HTTP, with the exact bodies and statuses, the expired-session rules, and the logs of both processes
/// checked for leaks.
@Suite struct RouteTests {
    static let signingKey = "push-route-tests-signing-key-0123456789abcdef"

    struct Claims: Encodable {
        var purpose: String
        var sub: String?
        var email: String?
        var iat: Int64
        var exp: Int64
    }

    /// A session JWT for `user` expiring `expiresIn` seconds from now (negative: already expired).
    static func session(_ user: String?, expiresIn: TimeInterval, purpose: String = "session", key: String = signingKey)
        throws -> String
    {
        let now = Date().timeIntervalSince1970
        return try HS256JWT(key: Array(key.utf8)).sign(
            Claims(
                purpose: purpose, sub: user, email: user.map { "\($0)@example.com" },
                iat: Int64(now + expiresIn - 30 * 86_400),
                exp: Int64(now + expiresIn)))
    }

    struct Client {
        let base: String

        func call(_ method: String, _ path: String, bearer: String? = nil, json: String? = nil) async throws -> (
            Int, String
        ) {
            var headers = [("Content-Type", "application/json")]
            if let bearer { headers.append(("Authorization", "Bearer \(bearer)")) }
            let response = try await testHTTPClient.execute(
                HTTPClientRequest(
                    method: method, url: base + path, headers: headers, body: json.map { Array($0.utf8) },
                    timeout: .seconds(10)))
            return (response.status, response.bodyText)
        }

        func object(_ method: String, _ path: String, bearer: String? = nil, json: String? = nil) async throws -> (
            Int, [String: JSONValue]
        ) {
            let (status, body) = try await call(method, path, bearer: bearer, json: json)
            guard case .object(let o)? = try? JSONDecoder().decode(JSONValue.self, from: Data(body.utf8)) else {
                return (status, [:])
            }
            return (status, o)
        }
    }

    static func error(_ message: String) -> [String: JSONValue] { ["error": .string(message)] }
    static let revoked: [String: JSONValue] = [
        "revoked": .bool(true), "matched": .bool(true), "outcome": .string("revoked"),
    ]
    static let already: [String: JSONValue] = [
        "revoked": .bool(true), "matched": .bool(false), "outcome": .string("already-revoked"),
    ]
    static let mismatch: [String: JSONValue] = [
        "revoked": .bool(false), "matched": .bool(false), "outcome": .string("claim-mismatch"),
    ]

    @Test func everyRouteOutcomeThroughTheGateway() async throws {
        let schema = Stack.schemaName("routes")
        try await withCleanup({ try await routes(schema: schema) }, cleanup: { await Stack.dropSchema(schema) })
    }

    func routes(schema: String) async throws {
        let push = try await ServiceProcess.start(
            "PushDispatcher",
            extra: [
                "PUSH_ROLES": "commands", "PUSH_SCHEMA": schema, "EXPO_BASE_URL": "http://127.0.0.1:1",
                "LOG_LEVEL": "debug",
            ])
        defer { push.kill() }
        let port = try freePort()
        let gateway = try await ServiceProcess.start(
            "Gateway",
            extra: [
                "PORT": String(port), "GATEWAY_INSTANCE_ID": "push-routes-\(Hex.random(bytes: 4))",
                "SESSION_SIGNING_KEY": Self.signingKey,
                "GATEWAY_LIMITS": "off", "LOG_LEVEL": "debug",
            ])
        defer { gateway.kill() }
        // The dispatcher must own the command partitions before the first command.
        #expect(await eventually(timeout: .seconds(20)) { push.log.contains("kafka partitions assigned") })
        let api = Client(base: "http://127.0.0.1:\(port)")
        let (alice, bob) = (Make.user(), Make.user())
        let aliceSession = try Self.session(alice, expiresIn: 3600)
        let bobSession = try Self.session(bob, expiresIn: 3600)
        let token = Make.expoToken()
        var secrets = [token]

        // register
        #expect(
            try await api.object("POST", "/v1/push/register", json: #"{"token":"\#(token)"}"#) == (
                401, Self.error("missing bearer token")
            ))
        for bad in [
            #"{}"#, #"{"token":"nope"}"#, #"{"token":"\#(token)","platform":"web"}"#, "not json", #"{"token":42}"#,
        ] {
            #expect(
                try await api.object("POST", "/v1/push/register", bearer: aliceSession, json: bad) == (
                    400, Self.error("valid ExponentPushToken required")
                ))
        }
        let (status, registered) = try await api.object(
            "POST", "/v1/push/register", bearer: aliceSession, json: #"{"token":" \#(token) ","deviceId":"phone-1"}"#)
        #expect(status == 200)
        guard case .string(let aliceId)? = registered["id"], case .object(let prefs)? = registered["prefs"] else {
            Issue.record("register answered \(registered)")
            return
        }
        secrets.append(aliceId)
        #expect(prefs == PushWire.mutedFlags)

        // prefs write and read
        let write =
            #"{"tokenId":"\#(aliceId)","prefs":{"notifications_enabled":true,"find_evolution":true,"shiny_new_key":true}}"#
        let (written, writtenBody) = try await api.object("POST", "/v1/push/prefs", bearer: aliceSession, json: write)
        #expect(written == 200)
        #expect(
            writtenBody["prefs"].flatMap { if case .object(let p) = $0 { p["find_evolution"] } else { nil } }
                == .bool(true))
        for bad in [
            #"{"prefs":{}}"#, #"{"tokenId":"\#(aliceId)","prefs":[1]}"#,
            #"{"tokenId":"\#(aliceId)","prefs":{"daily_brief":"yes"}}"#,
        ] {
            #expect(
                try await api.object("POST", "/v1/push/prefs", bearer: aliceSession, json: bad) == (
                    400, Self.error("tokenId and prefs object required")
                ))
        }
        #expect(
            try await api.object("POST", "/v1/push/prefs", bearer: bobSession, json: write) == (
                404, Self.error("token not found")
            ))
        let empty: [String: JSONValue] = ["prefs": .object([:]), "tokenId": .null]  // tokenId present and null
        #expect(try await api.object("GET", "/v1/push/prefs", bearer: aliceSession) == (200, empty))
        #expect(try await api.object("GET", "/v1/push/prefs?tokenId=push_stale", bearer: aliceSession) == (200, empty))
        #expect(try await api.object("GET", "/v1/push/prefs?tokenId=\(aliceId)", bearer: bobSession) == (200, empty))
        #expect(
            try await api.object("GET", "/v1/push/prefs?tokenId=", bearer: aliceSession) == (
                400, Self.error("valid tokenId required")
            ))
        let (readStatus, read) = try await api.object("GET", "/v1/push/prefs?tokenId=\(aliceId)", bearer: aliceSession)
        #expect(readStatus == 200 && read["tokenId"] == .string(aliceId))

        // revoke-current-device and revoke-device
        #expect(
            try await api.object("POST", "/v1/push/revoke-current-device", json: #"{"token":"\#(token)"}"#).0 == 401)
        #expect(
            try await api.object(
                "POST", "/v1/push/revoke-current-device", bearer: aliceSession, json: #"{"token":"x"}"#) == (
                    400, Self.error("valid ExponentPushToken required")
                ))
        #expect(
            try await api.object(
                "POST", "/v1/push/revoke-current-device", bearer: bobSession, json: #"{"token":"\#(token)"}"#) == (
                    409, Self.mismatch
                ))
        #expect(
            try await api.object("POST", "/v1/push/revoke-device", json: #"{"token":"\#(token)"}"#) == (
                400, Self.error("valid tokenId and ExponentPushToken required")
            ))
        #expect(
            try await api.object(
                "POST", "/v1/push/revoke-device", json: #"{"token":"\#(token)","tokenId":"push_other"}"#) == (
                    409, Self.mismatch
                ))
        #expect(
            try await api.object(
                "POST", "/v1/push/revoke-device",
                json: #"{"token":"\#(token)","tokenId":"\#(aliceId)","deviceId":"phone-1"}"#) == (200, Self.revoked))
        #expect(
            try await api.object(
                "POST", "/v1/push/revoke-device", json: #"{"token":"\#(token)","tokenId":"\#(aliceId)"}"#) == (
                    200, Self.already
                ))

        // DELETE /v1/push/token/:id
        let (_, again) = try await api.object(
            "POST", "/v1/push/register", bearer: aliceSession, json: #"{"token":"\#(token)"}"#)
        guard case .string(let aliceId2)? = again["id"] else { throw TestFailure("no id") }
        secrets.append(aliceId2)
        #expect(
            try await api.object("DELETE", "/v1/push/token/\(String(repeating: "x", count: 129))", bearer: aliceSession)
                == (400, Self.error("valid tokenId required")))
        #expect(
            try await api.object("DELETE", "/v1/push/token/\(aliceId2)", bearer: bobSession) == (
                404, Self.error("token not found")
            ))
        #expect(try await api.call("DELETE", "/v1/push/token/\(aliceId2)", bearer: aliceSession) == (204, ""))
        #expect(
            try await api.object("DELETE", "/v1/push/token/\(aliceId2)", bearer: aliceSession) == (
                404, Self.error("token not found")
            ))

        // revoke-expired-session-device: body first, then the expired bearer.
        let expiredRecently = try Self.session(alice, expiresIn: -86_400)
        let expiredLongAgo = try Self.session(alice, expiresIn: -100 * 86_400)
        let path = "/v1/push/revoke-expired-session-device"
        let rejected = Self.error("expired session recovery token required")
        #expect(
            try await api.object("POST", path, json: "{}") == (
                400, Self.error("valid ExponentPushToken or opaque tokenId required")
            ))
        #expect(
            try await api.object(
                "POST", path, bearer: expiredRecently, json: #"{"token":"bad","tokenId":"\#(aliceId)"}"#
            ).0 == 400)
        #expect(try await api.object("POST", path, json: #"{"token":"\#(token)"}"#) == (401, rejected))
        #expect(
            try await api.object("POST", path, bearer: aliceSession, json: #"{"token":"\#(token)"}"#) == (401, rejected)
        )  // still valid
        for forged in [
            try Self.session(alice, expiresIn: -60, purpose: "magic"), try Self.session(nil, expiresIn: -60),
            try Self.session(alice, expiresIn: -60, key: "another-signing-key-of-more-than-32-bytes"),
        ] {
            #expect(
                try await api.object("POST", path, bearer: forged, json: #"{"token":"\#(token)"}"#) == (401, rejected))
        }
        let (_, third) = try await api.object(
            "POST", "/v1/push/register", bearer: aliceSession, json: #"{"token":"\#(token)"}"#)
        guard case .string(let aliceId3)? = third["id"] else { throw TestFailure("no id") }
        secrets.append(aliceId3)
        // Expo token only: 90 days after expiry at most.
        #expect(
            try await api.object("POST", path, bearer: expiredLongAgo, json: #"{"token":"\#(token)"}"#) == (
                401, rejected
            ))
        // The token moves to Bob: Alice's historical id fails closed with 409, with no age limit on the id path.
        _ = try await api.object("POST", "/v1/push/register", bearer: bobSession, json: #"{"token":"\#(token)"}"#)
        #expect(
            try await api.object("POST", path, bearer: expiredLongAgo, json: #"{"tokenId":"\#(aliceId3)"}"#) == (
                409, Self.mismatch
            ))
        #expect(
            try await api.object("POST", path, bearer: expiredRecently, json: #"{"token":"\#(token)"}"#) == (
                409, Self.mismatch
            ))
        // Back to Alice (her row is reused): the id path works long after expiry, the token path within 90 days.
        _ = try await api.object("POST", "/v1/push/register", bearer: aliceSession, json: #"{"token":"\#(token)"}"#)
        #expect(
            try await api.object(
                "POST", path, bearer: expiredLongAgo, json: #"{"tokenId":"\#(aliceId3)","deviceId":"d"}"#) == (
                    200, Self.revoked
                ))
        _ = try await api.object("POST", "/v1/push/register", bearer: aliceSession, json: #"{"token":"\#(token)"}"#)
        #expect(
            try await api.object("POST", path, bearer: expiredRecently, json: #"{"token":"\#(token)"}"#) == (
                200, Self.revoked
            ))
        #expect(
            try await api.object("POST", path, bearer: expiredRecently, json: #"{"token":"\#(token)"}"#) == (
                200, Self.already
            ))

        // Neither process logged a token or an opaque id (the gateway logs every request at debug, by route template).
        for process in [gateway, push] {
            let log = process.log
            #expect(log.contains("/v1/push/") || process === push)
            for secret in secrets { #expect(!log.contains(secret), "\(process.name) log leaks a push identifier") }
            #expect(!log.contains("ExponentPushToken["))
            #expect(log.firstMatch(of: try Regex("push_[0-9a-f]{32}")) == nil)
        }
        #expect(gateway.log.contains("/v1/push/token/:id"))
    }
}
