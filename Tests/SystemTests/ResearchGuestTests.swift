import Contracts
import Foundation
import HTTPClient
import HTTPServer
import Postgres
import Runtime
import Synchronization
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// The research chat as the client reads it: a guest chats under the free quota (402 once spent), a slow
    /// Derivation run answers 202 and the thread read later holds the finished answer, the owner's memo is a PDF, and
    /// another caller's thread or memo is a 404.
    @Suite struct ResearchGuestTests {
        /// The fake run: `done` finishes it, `running` keeps it going.
        final class Run: Sendable {
            private let state = Mutex("done")
            var mode: String { state.withLock { $0 } }
            func set(_ mode: String) { state.withLock { $0 = mode } }
        }

        static func derivation(_ run: Run) throws -> FakeUpstream {
            try FakeUpstream { request in
                guard request.headers["Authorization"] == "Bearer derivation-test" else { return .error(401, "no") }
                switch request.path {
                case "/api/explore":
                    return .json(200, raw: Array(#"{"conversation":{"id":"dv-9","status":"running"}}"#.utf8))
                case "/api/autoresearch" where request.query["summary"] == "1":
                    let status = run.mode == "done" ? "conclusive" : "running"
                    return .json(
                        200, raw: Array(#"{"status":"\#(status)","phase":"gathering","completed_iterations":2}"#.utf8))
                case "/api/autoresearch":
                    return .json(
                        200,
                        raw: Array(
                            #"{"status":"conclusive","latest_result":{"briefing":"Guest brief: $YUM and QSR lead on margins."}}"#
                                .utf8))
                default: return .error(404, "no such path")
                }
            }
        }

        static func chat(_ gateway: GatewayProcess, _ headers: [(String, String)], _ body: String) async throws
            -> HTTPClientResponse
        {
            try await SystemClient.send(gateway, "POST", "/v1/agent/chat", json: body, headers: headers)
        }

        @Test func guestChatQuotaPendingRunsAndMemos() async throws {
            let run = Run()
            let derivation = try Self.derivation(run)
            let research = try await ServiceProcess.start(
                "Research",
                extra: [
                    "DERIVATION_URL": derivation.baseURL, "DERIVATION_RESEARCH_SERVICE_TOKEN": "derivation-test",
                    "DERIVATION_POLL_INTERVAL_MS": "50",
                ])
            // A 14 s turn leaves Derivation about 1 s before the OpenRouter reserve: a run still going is a 202.
            let gateway = try await GatewayProcess.start(
                instance: "test-guest-\(UInt16.random(in: 0...9999))", limits: true,
                extra: ["AGENT_BUDGET_MS": "14000"])
            defer {
                research.kill()
                gateway.process.kill()
            }
            let device = "guest-\(UUID().uuidString)"
            let guest = [("X-Device-Id", device)]

            // A guest's chat: 200 with the client's shape (the first command may wait for the group to settle).
            let body = #"{"message":"Who leads on margins?","ticker":"mcd","clientMessageId":"g-1"}"#
            var first = try await Self.chat(gateway, guest, body)
            for _ in 0..<20 where first.status != 200 { first = try await Self.chat(gateway, guest, body) }
            #expect(first.status == 200, "\(SystemClient.text(first))")
            let answered = try JSONDecoder().decode(AgentChatResponse.self, from: Data(first.body))
            #expect(answered.provider == "derivation-research-console")
            #expect(answered.safety == .researchOnly)
            #expect(answered.threadId == answered.conversationId)
            #expect(answered.userMessage.id == "user-g-1")
            #expect(answered.userMessage.content == "Who leads on margins?")
            #expect(answered.article.content == "Guest brief: $YUM and QSR lead on margins.")
            #expect(answered.article.chartTickers == ["MCD", "YUM", "QSR"])
            #expect(answered.conversation.schemaVersion == "research_conversation_ref_v1")
            let conversation = answered.conversationId
            #expect(answered.memoUrl == "/v1/agent/threads/\(conversation)/memo")
            let raw = SystemClient.json(first)
            #expect((raw["conversation"] as? [String: Any])?["pdf_url"] as? String == answered.memoUrl)

            // The owner's memo is a PDF; another device, a signed-in stranger or no identity gets nothing.
            let memoPath = "/v1/agent/threads/\(conversation)/memo"
            let memo = try await SystemClient.send(gateway, "GET", memoPath, headers: guest)
            #expect(memo.status == 200)
            #expect(memo.headers["Content-Type"] == "application/pdf")
            #expect(memo.body.starts(with: Array("%PDF-".utf8)))
            #expect(memo.body.count > 500)
            let other = [("X-Device-Id", "other-\(UUID().uuidString)")]
            let stranger = [("Authorization", "Bearer \(try await FindsTests.signIn(gateway))")]
            for headers in [other, stranger] {
                #expect(try await SystemClient.send(gateway, "GET", memoPath, headers: headers).status == 404)
                let thread = try await SystemClient.send(
                    gateway, "GET", "/v1/agent/threads/\(conversation)", headers: headers)
                #expect(thread.status == 404)
                #expect(SystemClient.json(thread)["error"] as? String == "research conversation not found")
            }
            #expect(try await SystemClient.send(gateway, "GET", memoPath).status == 400)

            // A run still going when the turn's time is up: 202, pending; the status says it is active.
            run.set("running")
            let slow = try await Self.chat(
                gateway, guest,
                #"{"message":"And next quarter?","conversationId":"\#(conversation)","clientMessageId":"g-2"}"#)
            #expect(slow.status == 202, "\(SystemClient.text(slow))")
            let pending = try JSONDecoder().decode(AgentChatResponse.self, from: Data(slow.body))
            #expect(pending.pending == true)
            #expect(pending.status == .running)
            #expect(pending.article.content == "Research is still running.")
            let status = try await SystemClient.send(
                gateway, "GET", "/v1/agent/threads/\(conversation)/status", headers: guest)
            let running = try JSONDecoder().decode(AgentConversationStatus.self, from: Data(status.body))
            #expect(running.status == .running)
            #expect(running.active == true)

            // The run finishes: the thread read resumes it and holds the answer, once.
            run.set("done")
            let finished = try await SystemClient.send(
                gateway, "GET", "/v1/agent/threads/\(conversation)", headers: guest)
            #expect(finished.status == 200)
            let thread = try JSONDecoder().decode(AgentThreadResponse.self, from: Data(finished.body)).thread
            #expect(thread.status == .conclusive)
            #expect(thread.safety == .researchOnly)
            #expect(thread.conversation?.id == conversation)
            #expect(thread.messages?.map(\.role) == ["user", "assistant", "user", "assistant"])
            #expect(thread.messages?.last?.content == "Guest brief: $YUM and QSR lead on margins.")
            let replay = try await Self.chat(
                gateway, guest,
                #"{"message":"And next quarter?","conversationId":"\#(conversation)","clientMessageId":"g-2"}"#)
            #expect(replay.status == 200)
            let list = try await SystemClient.send(gateway, "GET", "/v1/agent/threads", headers: guest)
            #expect(SystemClient.json(list)["count"] as? Int == 1)

            // Spent quota: 402 with the paywall body, before any work.
            let explores = derivation.requests.filter { $0.path == "/api/explore" }.count
            let db = try await PostgresPool.make(
                url: try TestEnvironment.require("POSTGRES_URL"), size: 1, logger: Logger(label: "t", sink: .memory()))
            for _ in 0..<50 {
                _ = try await db.execute(
                    "INSERT INTO gateway.usage_events (device_id, kind) VALUES (\(device), 'identify')")
            }
            await db.close()
            let spent = try await Self.chat(gateway, guest, #"{"message":"One more?","clientMessageId":"g-3"}"#)
            #expect(spent.status == 402)
            #expect(SystemClient.json(spent)["code"] as? String == "quota_exceeded")
            #expect(derivation.requests.filter { $0.path == "/api/explore" }.count == explores)

            // Signing in on the same device takes the guest's conversations along.
            let user = [
                ("Authorization", "Bearer \(try await FindsTests.signIn(gateway))"), ("X-Device-Id", device),
            ]
            let claimed = try await SystemClient.send(gateway, "GET", "/v1/agent/threads", headers: user)
            let threads = try JSONDecoder().decode(AgentThreadsResponse.self, from: Data(claimed.body)).threads
            #expect(threads.map(\.id) == [conversation])
            #expect(try await SystemClient.send(gateway, "GET", memoPath, headers: guest).status == 404)
            await derivation.shutdown()
        }
    }
}
