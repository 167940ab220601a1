import Contracts
import Foundation
import HTTPServer
import Messaging
import Testing

@testable import GatewayKit

/// The research chat's quota at the edge: refused before any command when spent, charged once per answered turn (a
/// replayed turn is free), and the memo's own content type kept.
struct AgentQuotaRouteTests {
    static let quotaBody = #"{"error":"generation quota exceeded","code":"quota_exceeded"}"#
    static let device = [("X-Device-Id", "guest-1"), ("Content-Type", "application/json")]

    @Test func aSpentQuotaIsA402BeforeAnyCommand() async throws {
        let gate = RecordingGate(reject: HTTPResponse(status: 402, body: Array(Self.quotaBody.utf8)))
        let gateway = try GatewayUnderTest(gate: gate)
        let response = await gateway.send("POST", "/v1/agent/chat", headers: Self.device, body: #"{"message":"hi"}"#)
        #expect(response.status == 402)
        #expect(gateway.transport.commands.isEmpty)
        #expect(gate.usage.isEmpty)
    }

    @Test(arguments: [("new", 200, 1), ("new", 202, 1), ("replayed", 200, 0), ("new", 404, 0)])
    func answeredTurnsAreCharged(turn: String, status: Int, charges: Int) async throws {
        let gate = RecordingGate()
        let reply = Reply(status: status, body: Array("{}".utf8), headers: [("X-Research-Turn", turn)])
        let gateway = try GatewayUnderTest(transport: RecordingTransport(.success(reply)), gate: gate)
        let response = await gateway.send("POST", "/v1/agent/chat", headers: Self.device, body: #"{"message":"hi"}"#)
        #expect(response.status == status)
        #expect(gate.usage == Array(repeating: "agent_chat:-|guest-1", count: charges))
    }

    @Test func theMemoIsSentAsItsBytes() async throws {
        let document = ResearchDocument(contentType: "application/pdf", fileName: "research-rc_1.pdf", bytes: [37, 80])
        let pdf = Reply.json(200, document)
        let gateway = try GatewayUnderTest(transport: RecordingTransport(.success(pdf)))
        let response = await gateway.send("GET", "/v1/agent/threads/rc_1/memo", headers: Self.device)
        #expect(response.status == 200)
        #expect(response.body == [37, 80])
        #expect(response.headers.filter { $0.0.lowercased() == "content-type" }.map { $0.1 } == ["application/pdf"])
        #expect(
            response.headers.contains { $0 == ("Content-Disposition", "attachment; filename=\"research-rc_1.pdf\"") })
        let missing = Reply.json(404, ["error": "research conversation not found"])
        let other = try GatewayUnderTest(transport: RecordingTransport(.success(missing)))
        #expect(await other.send("GET", "/v1/agent/threads/rc_1/memo", headers: Self.device).status == 404)
    }

    @Test func streamEventsFollowTheAnswer() throws {
        let answered = HTTPResponse(
            status: 200,
            body: Array(
                #"{"conversationId":"c","threadId":"c","status":"conclusive","article":{"id":"a","content":"x"}}"#.utf8)
        )
        let events = AgentStreamEvents.events(for: answered, clientMessageId: "m")
        #expect(events.hasPrefix("event: article\ndata: {\"content\":\"x\",\"id\":\"a\"}\n\n"))
        #expect(
            events.hasSuffix(
                #"event: done"# + "\n"
                    + #"data: {"clientMessageId":"m","conversationId":"c","status":"conclusive","threadId":"c"}"#
                    + "\n\n"))
        let pending = AgentStreamEvents.events(
            for: HTTPResponse(status: 202, body: Array(#"{"conversationId":"c","article":{}}"#.utf8)),
            clientMessageId: "m")
        #expect(pending.hasPrefix("event: done"))
        let failed = AgentStreamEvents.events(
            for: HTTPResponse(status: 404, body: Array(#"{"error":"research conversation not found"}"#.utf8)),
            clientMessageId: "m")
        #expect(failed.hasPrefix("event: error"))
        #expect(failed.contains(#""clientMessageId":"m""#))
    }
}
