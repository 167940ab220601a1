import Contracts
import RatingCore
import Testing

/// The engine's chat turn as the client reads it, and the body the engine is sent.
struct EngineChatTests {
    @Test func renamesFillsAndKeepsTheRest() {
        let engine: [String: JSONValue] = [
            "answer": .string("  From the memo. "), "conversation_id": .string("c-1"),
            "generated_at": .string("2026-12-03T12:00:00Z"), "model": .string(" "), "engine_version": .string("v9"),
            "citations": .object([:]),
        ]
        let turn = EngineChat.reply(engine, ticker: "MCD")
        #expect(turn["ticker"] == .string("MCD") && turn["reply"] == .string("From the memo."))
        #expect(turn["conversationId"] == .string("c-1") && turn["conversation_id"] == nil)
        #expect(turn["generatedAt"] == .string("2026-12-03T12:00:00Z") && turn["generated_at"] == nil)
        #expect(turn["citations"] == .array([]) && turn["engine_version"] == .string("v9"))
        // A blank model stays as the engine sent it.
        #expect(turn["model"] == .string(" "))
    }

    @Test func replyPrefersReplyAndTheEnginesTicker() {
        let cited: JSONValue = .array([.object(["id": .string("c1")])])
        let turn = EngineChat.reply(
            ["reply": .string("A"), "message": .string("B"), "ticker": .string("KO"), "citations": cited],
            ticker: "MCD")
        #expect(turn["reply"] == .string("A") && turn["ticker"] == .string("KO") && turn["citations"] == cited)
        #expect(EngineChat.reply([:], ticker: "MCD")["reply"] == .string(""))
    }

    @Test func upstreamBodyAndPath() {
        let bare = PacketChatCommand(engine: .prism, ticker: "MCD", message: "Why?", conversationId: nil, history: [])
        #expect(EngineChat.upstreamBody(bare) == ["ticker": .string("MCD"), "message": .string("Why?")])
        var full = bare
        full.conversationId = "c-1"
        full.history = [.init(role: "user", content: "Hi")]
        let body = EngineChat.upstreamBody(full)
        #expect(body["conversation_id"] == .string("c-1"))
        #expect(body["history"] == .array([.object(["role": .string("user"), "content": .string("Hi")])]))
        #expect(EngineChat.path(.prism, segment: "MCD") == "/api/prism/chat")
        #expect(EngineChat.path(.situate, segment: "X%3ABTCUSD") == "/api/situate/X%3ABTCUSD/chat")
    }
}
