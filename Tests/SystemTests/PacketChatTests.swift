import Foundation
import HTTPClient
import HTTPServer
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// Prism/Situate chat through the whole system: HTTP → Gateway (identity, the chat limiter, validation) → Kafka →
    /// Rating → a loopback Underlying engine that answers only from a packet it has stored.
    @Suite struct PacketChatTests {
        @Test func chatAnswersFromTheStoredPacket() async throws {
            // A ticker of its own: the stack's packet store outlives each test.
            let t = "Q" + String((0..<4).map { _ in "ABCDEFGHIJKLMNOPQRSTUVWXYZ".randomElement() ?? "Q" })
            let engine = FakeUnderlyingEngine(built: ["situate:\(t)"])
            let underlying = try FakeUpstream { request in engine.handle(request) ?? .error(404, "no route") }
            let upstream = ["UNDERLYING_URL": underlying.baseURL]
            let rating = try await ServiceProcess.start("Rating", extra: upstream)
            let research = try await ServiceProcess.start(
                "Research", extra: upstream.merging(["PACKET_WORKER_INTERVAL_MS": "100"]) { $1 })
            let gateway = try await GatewayProcess.start(
                instance: "test-packet-chat-\(UInt16.random(in: 0...9999))", limits: true)
            defer {
                rating.kill()
                research.kill()
                gateway.process.kill()
            }
            let device = [("X-Device-Id", "chat-\(UUID().uuidString)")]
            func chat(_ path: String, _ body: String, _ headers: [(String, String)] = device) async throws
                -> HTTPClientResponse
            {
                try await SystemClient.send(gateway, "POST", path, json: body, headers: headers)
            }

            // Refused before any upstream call: no identity, a broken body, a ticker that is no symbol.
            let anonymous = try await chat("/v1/prism/chat", #"{"ticker":"\#(t)","message":"Why?"}"#, [])
            #expect(
                anonymous.status == 400
                    && SystemClient.errorMessage(anonymous) == "X-Device-Id header required for anonymous requests")
            for body in [
                #"{"ticker":"\#(t)"}"#, #"{"ticker":"\#(t)","message":""}"#, "[1]", "not json",
                #"{"ticker":"\#(t)","message":"Why?","history":[{"role":"system","content":"x"}]}"#,
                #"{"ticker":"\#(t)","message":"Why?","conversationId":""}"#,
            ] {
                let bad = try await chat("/v1/prism/chat", body)
                #expect(bad.status == 400, "\(body)")
                #expect(SystemClient.json(bad)["error"] as? String == "ticker and message (1–4000 chars) required")
                #expect(SystemClient.json(bad)["code"] as? String == "prism_bad_request")
            }
            let badTicker = try await chat("/v1/situate/chat", #"{"ticker":"$$","message":"Why?"}"#)
            #expect(SystemClient.json(badTicker)["error"] as? String == "invalid ticker")
            #expect(SystemClient.json(badTicker)["code"] as? String == "situate_bad_request")
            #expect(underlying.requests.isEmpty)

            // Nothing built for the ticker: the engine's 404 becomes the original's answer.
            // (Both services answer first, unmetered, once their consumer groups have settled.)
            for path in ["/v1/prism/\(t)/summary", "/v1/prism/\(t)"] {
                for _ in 0..<40 where try await SystemClient.send(gateway, "GET", path).status != 404 {}
            }
            let missing = try await chat("/v1/prism/chat", #"{"ticker":"\#(t.lowercased())","message":"Why?"}"#)
            #expect(missing.status == 404)
            #expect(SystemClient.json(missing)["code"] as? String == "prism_packet_not_found")
            #expect(
                SystemClient.errorMessage(missing)
                    == "no Prism packet for this ticker yet — POST /v1/prism to build one")

            // Build the packet as a job, then ask again: the engine's turn in the client's shape.
            #expect(try await chat("/v1/prism", #"{"ticker":"\#(t)"}"#).status == 202)
            let built = try await PacketBuildTests.poll(gateway, "/v1/prism/\(t)")
            #expect(built.status == 200 && engine.has("prism", t))
            let answered = try await chat(
                "/v1/ubermemo/chat",
                #"{"ticker":" \#(t.lowercased()) ","message":"What drives the view?","conversation_id":"conv-7","history":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello"}],"extra":1}"#
            )
            #expect(answered.status == 200, "\(SystemClient.text(answered))")
            let turn = SystemClient.json(answered)
            #expect(turn["ticker"] as? String == t)
            #expect((turn["reply"] as? String)?.contains("2 earlier turns): What drives the view?") == true)
            #expect(turn["conversationId"] as? String == "conv-7" && turn["conversation_id"] == nil)
            #expect(turn["generatedAt"] as? String == "2026-12-03T12:00:00Z" && turn["generated_at"] == nil)
            #expect(turn["model"] as? String == "claude-test" && turn["engine_version"] as? String == "test")
            let citations = try #require(turn["citations"] as? [[String: Any]])
            #expect(citations.first?["id"] as? String == "c1" && citations.first?["source"] as? String != nil)
            let sent = try #require(underlying.requests.last { $0.path == "/api/prism/chat" })
            let sentBody = SystemClient.jsonObject(sent.body)
            #expect(sentBody["ticker"] as? String == t && sentBody["conversation_id"] as? String == "conv-7")
            #expect((sentBody["history"] as? [Any])?.count == 2 && sentBody["extra"] == nil)

            // Situate (through its alias) asks the engine at /api/situate/<T>/chat; no history → none sent.
            let situate = try await chat("/v1/research/chat", #"{"ticker":"\#(t)","message":"Posture?"}"#)
            #expect(situate.status == 200)
            #expect((SystemClient.json(situate)["citations"] as? [[String: Any]])?.first?["module"] as? String != nil)
            let sentSituate = try #require(underlying.requests.last { $0.path == "/api/situate/\(t)/chat" })
            #expect(SystemClient.jsonObject(sentSituate.body)["history"] == nil)

            // The engine at capacity: its status, the busy code and its Retry-After.
            engine.setChatBusy(503)
            let busy = try await chat("/v1/prism/chat", #"{"ticker":"\#(t)","message":"Now?"}"#)
            #expect(busy.status == 503 && busy.headers["Retry-After"] == "7")
            #expect(SystemClient.json(busy)["code"] as? String == "prism_busy")
            #expect(SystemClient.json(busy)["upstreamStatus"] as? Int == 503)
            engine.setChatBusy(nil)

            // 30 turns per identity and hour per engine: the 31st is refused before the body is read.
            let limited = [("X-Device-Id", "chat-limit-\(UUID().uuidString)")]
            for i in 0..<30 {
                let ok = try await chat("/v1/prism/chat", #"{"ticker":"\#(t)","message":"Turn \#(i)"}"#, limited)
                #expect(ok.status == 200, "turn \(i)")
            }
            let before = underlying.requestCount
            let refused = try await chat("/v1/prism/chat", "not even json", limited)
            #expect(refused.status == 429)
            let refusal = SystemClient.json(refused)
            #expect(refusal["code"] as? String == "prism_chat_rate_limited" && refusal["limit"] as? Int == 30)
            let wait = try #require(refusal["retryAfter"] as? Int)
            #expect(wait > 3000 && refused.headers["Retry-After"] == String(wait))
            #expect(SystemClient.errorMessage(refused) == "too many Prism chat turns; retry in \(wait)s")
            #expect(underlying.requestCount == before)
            let otherEngine = try await chat("/v1/situate/chat", #"{"ticker":"\#(t)","message":"Still?"}"#, limited)
            #expect(otherEngine.status == 200)

            await underlying.shutdown()
        }
    }
}
