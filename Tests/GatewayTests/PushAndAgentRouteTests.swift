import Contracts
import Foundation
import HTTPServer
import Messaging
import Testing

@testable import GatewayKit

/// Routes the PushDispatcher and Research answer: `/v1/push/*` and `/v1/agent/*`.
@Suite("Gateway routes: push and research chat (in process)")
struct PushAndAgentRouteTests {
    static let expo = "ExponentPushToken[abc]"

    static let push: [RouteCase] = [
        RouteCase(
            "POST", "/v1/push/revoke-device", body: #"{"token":"\#(expo)","tokenId":"tok_1","deviceId":"d1"}"#,
            .command(
                .push, "push.revoke.device.v1", key: nil,
                fields: ["token": s(expo), "tokenId": s("tok_1"), "deviceId": s("d1")])),
        RouteCase(
            "POST", "/v1/push/revoke-device", body: #"{"token":"\#(expo)"}"#,
            .rejected(400, "valid tokenId and ExponentPushToken required")),
        RouteCase(
            "POST", "/v1/push/revoke-device", body: #"{"token":"nope","tokenId":"tok_1"}"#,
            .rejected(400, "valid tokenId and ExponentPushToken required")),
        RouteCase(
            "POST", "/v1/push/revoke-expired-session-device", body: "{}",
            .rejected(400, "valid ExponentPushToken or opaque tokenId required")),
        RouteCase(
            "POST", "/v1/push/revoke-expired-session-device", body: #"{"token":"bad","tokenId":"tok_1"}"#,
            .rejected(400, "valid ExponentPushToken or opaque tokenId required")),
        RouteCase(
            "POST", "/v1/push/revoke-expired-session-device", body: #"{"tokenId":"tok_1"}"#,
            .rejected(401, "expired session recovery token required")),
        RouteCase(
            "POST", "/v1/push/revoke-expired-session-device", body: #"{"tokenId":"tok_1"}"#, signedIn: true,
            .rejected(401, "expired session recovery token required")),
        RouteCase(
            "POST", "/v1/push/revoke-current-device", body: #"{"token":"\#(expo)"}"#, signedIn: true,
            .command(.push, "push.revoke.current-device.v1", key: user, fields: ["userId": s(user), "token": s(expo)])),
        RouteCase(
            "POST", "/v1/push/revoke-current-device", body: "{}", signedIn: true,
            .rejected(400, "valid ExponentPushToken required")),
        RouteCase(
            "POST", "/v1/push/revoke-current-device", body: #"{"token":"\#(expo)"}"#,
            .rejected(401, "missing bearer token")),
        RouteCase(
            "POST", "/v1/push/register", body: #"{"token":"\#(expo)","platform":"android"}"#, signedIn: true,
            .command(
                .push, "push.register.v1", key: user,
                fields: ["userId": s(user), "token": s(expo), "platform": s("android")])),
        RouteCase(
            "POST", "/v1/push/register", body: #"{"token":"\#(expo)"}"#, signedIn: true,
            headers: [.init(name: "X-Device-Id", value: " dev-1 ")],
            .command(.push, "push.register.v1", key: user, fields: ["platform": s("ios"), "deviceId": s("dev-1")])),
        RouteCase(
            "POST", "/v1/push/register", body: #"{"token":"\#(expo)","platform":"web"}"#, signedIn: true,
            .rejected(400, "valid ExponentPushToken required")),
        RouteCase("POST", "/v1/push/register", body: #"{"token":"\#(expo)"}"#, .rejected(401, "missing bearer token")),
        RouteCase(
            "POST", "/v1/push/prefs", body: #"{"tokenId":"tok_1","prefs":{"notifications_enabled":true}}"#,
            signedIn: true,
            .command(
                .push, "push.prefs.write.v1", key: user,
                fields: ["tokenId": s("tok_1"), "patch": .object(["notifications_enabled": b(true)])])),
        RouteCase(
            "POST", "/v1/push/prefs", body: #"{"tokenId":"tok_1"}"#, signedIn: true,
            .rejected(400, "tokenId and prefs object required")),
        RouteCase(
            "POST", "/v1/push/prefs", body: #"{"tokenId":"tok_1","prefs":{"notifications_enabled":"yes"}}"#,
            signedIn: true, .rejected(400, "tokenId and prefs object required")),
        RouteCase(
            "GET", "/v1/push/prefs", query: "tokenId=tok_1", signedIn: true,
            .command(.push, "push.prefs.read.v1", key: user, fields: ["tokenId": s("tok_1")])),
        RouteCase(
            "GET", "/v1/push/prefs", query: "tokenId=%20", signedIn: true, .rejected(400, "valid tokenId required")),
        RouteCase("GET", "/v1/push/prefs", query: "tokenId=tok_1", .rejected(401, "missing bearer token")),
        RouteCase(
            "DELETE", "/v1/push/token/tok_1", signedIn: true,
            .command(.push, "push.token.delete.v1", key: user, fields: ["tokenId": s("tok_1")])),
        RouteCase(
            "DELETE", "/v1/push/token/" + String(repeating: "t", count: 129), signedIn: true,
            .rejected(400, "valid tokenId required")),
    ]

    static let agent: [RouteCase] = [
        RouteCase(
            "POST", "/v1/agent/chat",
            body: #"{"message":" hi ","ticker":"aapl","threadId":"c_1","clientMessageId":"m_1"}"#, signedIn: true,
            .command(
                .research, "agent.chat.v1", key: user,
                fields: [
                    "owner": .object(["userId": s(user)]), "message": s("hi"), "ticker": s("AAPL"),
                    "conversationId": s("c_1"),
                    "clientMessageId": s("m_1"), "researchDepth": s("auto"),
                ])),
        RouteCase(
            "POST", "/v1/agent/chat", body: #"{"message":"hi","researchDepth":"deep"}"#, signedIn: true,
            .command(.research, "agent.chat.v1", key: user, fields: ["researchDepth": s("deep")])),
        RouteCase(
            "POST", "/v1/agent/chat", body: #"{"message":"  "}"#, signedIn: true,
            .rejected(400, "valid message required (1–4000 chars)")),
        RouteCase(
            "POST", "/v1/agent/chat", body: "{}", signedIn: true,
            .rejected(400, "valid message required (1–4000 chars)")),
        RouteCase(
            "POST", "/v1/agent/chat", body: #"{"message":"hi","ticker":"1x"}"#, signedIn: true,
            .rejected(400, "invalid ticker")),
        RouteCase(
            "POST", "/v1/agent/chat", body: #"{"message":"hi","conversationId":""}"#, signedIn: true,
            .rejected(400, "invalid conversationId")),
        RouteCase(
            "POST", "/v1/agent/chat", body: #"{"message":"hi","clientMessageId":""}"#, signedIn: true,
            .rejected(400, "clientMessageId must be 1-128 chars")),
        RouteCase(
            "POST", "/v1/agent/chat", body: #"{"message":"hi","researchDepth":"ultra"}"#, signedIn: true,
            .rejected(400, "invalid researchDepth")),
        RouteCase(
            "POST", "/v1/agent/chat", body: #"{"message":"hi"}"#,
            .rejected(400, "X-Device-Id header required for anonymous requests")),
        RouteCase(
            "POST", "/v1/agent/chat", body: #"{"message":"hi"}"#, headers: [.init(name: "X-Device-Id", value: "dev-1")],
            .command(
                .research, "agent.chat.v1", key: "device:dev-1",
                fields: ["owner": .object(["deviceId": s("dev-1")])])),
        RouteCase(
            "POST", "/v1/agent/stream", body: "{}", signedIn: true,
            .rejected(400, "valid message required (1–4000 chars)")),
        RouteCase(
            "POST", "/v1/agent/stream", body: #"{"message":"hi"}"#,
            .rejected(400, "X-Device-Id header required for anonymous requests")),
        RouteCase(
            "GET", "/v1/agent/threads", signedIn: true,
            .command(
                .research, "agent.threads.v1", key: user,
                fields: ["owner": .object(["userId": s(user)]), "view": s("thread")])),
        RouteCase(
            "GET", "/v1/agent/threads/c_1", signedIn: true,
            .command(
                .research, "agent.threads.v1", key: user, fields: ["conversationId": s("c_1"), "view": s("thread")])),
        RouteCase(
            "GET", "/v1/agent/threads/c_1/status", signedIn: true,
            .command(
                .research, "agent.threads.v1", key: user, fields: ["conversationId": s("c_1"), "view": s("status")])),
        RouteCase(
            "GET", "/v1/agent/threads/c_1/memo", headers: [.init(name: "X-Device-Id", value: "dev-1")],
            .command(
                .research, "agent.threads.v1", key: "device:dev-1",
                fields: ["conversationId": s("c_1"), "view": s("memo")])),
        RouteCase("GET", "/v1/agent/threads/a%20b", signedIn: true, .rejected(400, "invalid conversation id")),
        RouteCase(
            "GET", "/v1/agent/threads", .rejected(400, "X-Device-Id header required for anonymous requests")),
    ]

    @Test(arguments: push) func pushRoute(_ routeCase: RouteCase) async throws { try await routeCase.check() }

    @Test(arguments: agent) func agentRoute(_ routeCase: RouteCase) async throws { try await routeCase.check() }

    @Test func pushPrefsWithoutATokenIdAreTheEmptyAnswerWithoutACommand() async throws {
        let gateway = try GatewayUnderTest()
        let response = await gateway.send("GET", "/v1/push/prefs", headers: [("Authorization", try gateway.bearer())])
        #expect(response.status == 200)
        #expect(try JSONDecoder().decode(PushPrefsReadResponse.self, from: Data(response.body)) == .empty)
        #expect(gateway.transport.commands.isEmpty)
    }

    @Test func anExpiredSessionRecoversItsDeviceByTokenId() async throws {
        let gateway = try GatewayUnderTest()
        let expired = try gateway.tokens.issueSession(
            userId: user, email: GatewayUnderTest.user.email, now: Date(timeIntervalSinceNow: -40 * 24 * 3600))
        let response = await gateway.send(
            "POST", "/v1/push/revoke-expired-session-device",
            headers: [("Authorization", "Bearer " + expired.token), ("Content-Type", "application/json")],
            body: #"{"tokenId":"tok_1"}"#)
        #expect(response.status == 200)
        let command = gateway.transport.commands.first
        #expect(command?.name == "push.revoke.expired-session-device.v1")
        #expect(command?.key == user)
        #expect(command?.fields["subject"] == s(user))
        #expect(command?.fields["tokenId"] == s("tok_1"))
    }

    @Test func aPushReplyOf204IsAnEmpty204() async throws {
        let gateway = try GatewayUnderTest(transport: RecordingTransport(.success(.init(status: 204, body: []))))
        let response = await gateway.send(
            "DELETE", "/v1/push/token/tok_1", headers: [("Authorization", try gateway.bearer())])
        #expect(response.status == 204)
        #expect(response.body.isEmpty)
        #expect(response.header("Content-Type") == nil)
    }

    @Test func theChatStreamSendsTheTurnAndAnswersWithEvents() async throws {
        let gateway = try GatewayUnderTest()
        let response = await gateway.send(
            "POST", "/v1/agent/stream",
            headers: [("Authorization", try gateway.bearer()), ("Content-Type", "application/json")],
            body: #"{"message":"hi"}"#)
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/event-stream")
        #expect(response.stream != nil)
        let deadline = ContinuousClock.now + .seconds(5)
        while gateway.transport.commands.isEmpty && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(gateway.transport.commands.first?.name == "agent.chat.v1")
        #expect(gateway.transport.commands.first?.key == user)
    }
}
