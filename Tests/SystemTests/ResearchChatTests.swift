import Contracts
import Foundation
import HTTPClient
import HTTPServer
import Synchronization
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// Research chat through the gateway and the Research service, with loopback fakes for Derivation and OpenRouter:
    /// who answers, what is stored, idempotent retries, and owner-only threads (guests: `ResearchGuestTests`).
    @Suite struct ResearchChatTests {
        final class Modes: Sendable {
            private let state = Mutex<(derivation: String, openRouter: String)>(("ok", "ok"))
            var derivation: String { state.withLock { $0.derivation } }
            var openRouter: String { state.withLock { $0.openRouter } }
            func set(derivation: String, openRouter: String) { state.withLock { $0 = (derivation, openRouter) } }
        }

        static func derivation(_ modes: Modes) throws -> FakeUpstream {
            try FakeUpstream { request in
                guard request.headers["Authorization"] == "Bearer derivation-test" else { return .error(401, "no") }
                if modes.derivation == "slow" && request.path == "/api/explore" {
                    try? await Task.sleep(for: .seconds(2))
                }
                switch (modes.derivation, request.path) {
                case ("down", _): return .error(503, "unavailable")
                case ("machine", "/api/explore"):
                    return .json(200, raw: Array(#"{"error":"MODEL_BUDGET_EXHAUSTED"}"#.utf8))
                case (_, "/api/explore"):
                    return .json(200, raw: Array(#"{"conversation":{"id":"dv-1","status":"running"}}"#.utf8))
                case (_, "/api/autoresearch") where request.query["summary"] == "1":
                    return .json(200, raw: Array(#"{"status":"conclusive"}"#.utf8))
                case (_, "/api/autoresearch"):
                    return .json(
                        200,
                        raw: Array(
                            #"{"status":"conclusive","latest_result":{"briefing":"Derivation brief: MCD's franchise model holds up."}}"#
                                .utf8))
                default: return .error(404, "no such path")
                }
            }
        }

        static func openRouter(_ modes: Modes) throws -> FakeUpstream {
            try FakeUpstream { request in
                guard modes.openRouter == "ok" else { return .error(500, "overloaded") }
                let model = (SystemClient.jsonObject(request.body)["model"] as? String) ?? "?"
                return IdentifyPipelineTests.completion(
                    #"{"brief":"OpenRouter brief: demand looks steady."}"#, model: model)
            }
        }

        static func chat(
            _ gateway: GatewayProcess, _ auth: [(String, String)], _ body: String
        ) async throws -> (status: Int, response: AgentChatResponse?, text: String) {
            let r = try await SystemClient.send(gateway, "POST", "/v1/agent/chat", json: body, headers: auth)
            return (
                r.status, try? JSONDecoder().decode(AgentChatResponse.self, from: Data(r.body)), SystemClient.text(r)
            )
        }

        @Test func derivationFallbackRetriesAndOwnership() async throws {
            let modes = Modes()
            let derivation = try Self.derivation(modes)
            let openRouter = try Self.openRouter(modes)
            let research = try await ServiceProcess.start(
                "Research",
                extra: [
                    "DERIVATION_URL": derivation.baseURL, "DERIVATION_RESEARCH_SERVICE_TOKEN": "derivation-test",
                    "DERIVATION_POLL_INTERVAL_MS": "50", "OPENROUTER_API_KEY": "test",
                    "OPENROUTER_BASE_URL": openRouter.baseURL,
                ])
            let gateway = try await GatewayProcess.start(instance: "test-research-\(UInt16.random(in: 0...9999))")
            defer {
                research.kill()
                gateway.process.kill()
            }
            let owner = [("Authorization", "Bearer \(try await FindsTests.signIn(gateway))")]
            let stranger = [("Authorization", "Bearer \(try await FindsTests.signIn(gateway))")]

            #expect(
                try await SystemClient.send(gateway, "POST", "/v1/agent/chat", json: #"{"message":"hi"}"#).status == 400
            )
            #expect(try await Self.chat(gateway, owner, #"{"message":"   "}"#).status == 400)

            // Derivation answers: stored and returned (the first command may wait for the new group to settle).
            var first = try await Self.chat(
                gateway, owner, #"{"message":"Is McDonald's resilient?","ticker":"mcd","clientMessageId":"m-1"}"#)
            for _ in 0..<20 where first.status != 200 {
                first = try await Self.chat(
                    gateway, owner, #"{"message":"Is McDonald's resilient?","ticker":"mcd","clientMessageId":"m-1"}"#)
            }
            #expect(first.status == 200, "\(first.text)")
            let answered = try #require(first.response)
            #expect(answered.article.content == "Derivation brief: MCD's franchise model holds up.")
            #expect(answered.article.provider == "derivation")
            #expect(answered.status == .conclusive)
            #expect(answered.ticker == "MCD")
            let conversation = answered.conversationId

            // A retried client message id returns the stored turn and asks nobody again.
            let explores = derivation.requests.filter { $0.path == "/api/explore" }.count
            let retried = try await Self.chat(
                gateway, owner, #"{"message":"Is McDonald's resilient?","clientMessageId":"m-1"}"#)
            #expect(retried.response?.article == answered.article)
            #expect(derivation.requests.filter { $0.path == "/api/explore" }.count == explores)

            // Derivation's machine error: OpenRouter answers, and the code never reaches the client.
            modes.set(derivation: "machine", openRouter: "ok")
            let fallback = try await Self.chat(
                gateway, owner,
                #"{"message":"And its margins?","conversationId":"\#(conversation)","clientMessageId":"m-2"}"#)
            #expect(fallback.status == 200)
            #expect(fallback.response?.article.content == "OpenRouter brief: demand looks steady.")
            #expect(fallback.response?.conversationId == conversation)
            #expect(!fallback.text.contains("MODEL_BUDGET_EXHAUSTED"))
            #expect(
                derivation.requests.last.map { SystemClient.jsonObject($0.body)["conversation_id"] as? String }
                    == "dv-1")

            // Both down: the plain sentence, nothing else.
            modes.set(derivation: "down", openRouter: "down")
            let down = try await Self.chat(
                gateway, owner,
                #"{"message":"Dividend outlook?","conversationId":"\#(conversation)","clientMessageId":"m-3"}"#)
            #expect(down.status == 200)
            #expect(down.response?.article.content == "Research is temporarily unavailable. Try again in a moment.")
            #expect(!down.text.contains("HTTP ") && !down.text.contains("overloaded"))

            // The thread holds each turn once, oldest first; its status is the last turn's.
            let thread = try await SystemClient.send(
                gateway, "GET", "/v1/agent/threads/\(conversation)", headers: owner)
            #expect(thread.status == 200)
            let messages =
                try JSONDecoder().decode(AgentThreadResponse.self, from: Data(thread.body)).thread.messages ?? []
            #expect(messages.map(\.role) == ["user", "assistant", "user", "assistant", "user", "assistant"])
            #expect(messages.first?.content == "Is McDonald's resilient?")
            let status = try await SystemClient.send(
                gateway, "GET", "/v1/agent/threads/\(conversation)/status", headers: owner)
            #expect(try JSONDecoder().decode(AgentConversationStatus.self, from: Data(status.body)).status == .error)
            let list = try await SystemClient.send(gateway, "GET", "/v1/agent/threads", headers: owner)
            let threads = try JSONDecoder().decode(AgentThreadsResponse.self, from: Data(list.body)).threads
            #expect(threads.map(\.id) == [conversation])
            #expect(threads.first?.title == "$MCD research")

            // Another user sees nothing of it.
            #expect(
                try await SystemClient.send(gateway, "GET", "/v1/agent/threads/\(conversation)", headers: stranger)
                    .status == 404)
            #expect(
                try await SystemClient.send(
                    gateway, "GET", "/v1/agent/threads/\(conversation)/status", headers: stranger
                ).status == 404)
            let hijack = try await Self.chat(
                gateway, stranger,
                #"{"message":"mine now","conversationId":"\#(conversation)","clientMessageId":"s-1"}"#)
            #expect(hijack.status == 404)
            let strangers = try await SystemClient.send(gateway, "GET", "/v1/agent/threads", headers: stranger)
            #expect(try JSONDecoder().decode(AgentThreadsResponse.self, from: Data(strangers.body)).threads.isEmpty)

            // Concurrent duplicates of a first message converge on one conversation and one answer.
            modes.set(derivation: "ok", openRouter: "ok")
            let duplicates = try await withThrowingTaskGroup(of: AgentChatResponse?.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        try await Self.chat(
                            gateway, stranger, #"{"message":"Same question","clientMessageId":"dup-1"}"#
                        ).response
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(duplicates.count == 3 && duplicates.allSatisfy { $0 != nil })
            #expect(Set(duplicates.compactMap { $0?.article.id }).count == 1)
            let after = try await SystemClient.send(gateway, "GET", "/v1/agent/threads", headers: stranger)
            let own = try JSONDecoder().decode(AgentThreadsResponse.self, from: Data(after.body)).threads
            #expect(own.count == 1)
            await derivation.shutdown()
            await openRouter.shutdown()
        }

        @Test func streamSendsHeartbeatsWhileASlowAnswerIsWritten() async throws {
            let modes = Modes()
            modes.set(derivation: "slow", openRouter: "down")
            let derivation = try Self.derivation(modes)
            let research = try await ServiceProcess.start(
                "Research",
                extra: [
                    "DERIVATION_URL": derivation.baseURL, "DERIVATION_RESEARCH_SERVICE_TOKEN": "derivation-test",
                    "DERIVATION_POLL_INTERVAL_MS": "50",
                ])
            let gateway = try await GatewayProcess.start(
                instance: "test-stream-\(UInt16.random(in: 0...9999))", extra: ["AGENT_STREAM_HEARTBEAT_MS": "300"])
            defer {
                research.kill()
                gateway.process.kill()
            }
            let auth = [("Authorization", "Bearer \(try await FindsTests.signIn(gateway))")]
            #expect(
                try await SystemClient.send(gateway, "POST", "/v1/agent/stream", json: "{}", headers: auth).status
                    == 400)
            // The first command may wait for the new group to settle: warm up on a cheap read.
            for _ in 0..<40 {
                if try await SystemClient.send(gateway, "GET", "/v1/agent/threads", headers: auth).status == 200 {
                    break
                }
            }

            let streamed = try await SystemClient.send(
                gateway, "POST", "/v1/agent/stream", json: #"{"message":"Slow question","clientMessageId":"slow-1"}"#,
                headers: auth)
            #expect(streamed.status == 200)
            #expect(streamed.headers["Content-Type"] == "text/event-stream")
            let text = SystemClient.text(streamed)
            let events = text.components(separatedBy: "\n\n").filter { !$0.isEmpty }
            let heartbeats = events.filter { $0.hasPrefix("event: ping") }
            #expect(heartbeats.count >= 3, "\(text)")  // a 2 s answer at 300 ms
            let message = try #require(events.first { $0.hasPrefix("event: article") })
            let json = try #require(message.components(separatedBy: "data: ").last)
            let answer = try JSONDecoder().decode(ResearchArticle.self, from: Data(json.utf8))
            #expect(answer.content == "Derivation brief: MCD's franchise model holds up.")
            #expect(events.last?.hasPrefix("event: done") == true)
            // Heartbeats were written while the answer was pending, before it arrived.
            let stamps = heartbeats.compactMap { $0.components(separatedBy: "\"ts\":").last?.dropLast() }.compactMap {
                Int64($0)
            }
            #expect(stamps.count == heartbeats.count)
            #expect((stamps.last ?? 0) - (stamps.first ?? 0) >= 500)
            await derivation.shutdown()
        }
    }
}
