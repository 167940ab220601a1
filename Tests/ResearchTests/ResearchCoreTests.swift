import Contracts
import ResearchCore
import Testing

/// Research's rules without a server: what counts as a machine code, where a finished run's brief sits, the prompt,
/// and the notification an answer sends.
struct ResearchCoreTests {
    @Test(arguments: [
        ("MODEL_BUDGET_EXHAUSTED", true), ("RATE_LIMITED", true), ("  INSUFFICIENT_QUOTA  ", true),
        ("model budget exhausted", false), ("Apple grew 5% last quarter.", false), ("ABC", false), ("", false),
    ])
    func machineCodesAreRecognised(text: String, isCode: Bool) {
        #expect((DerivationReading.machineText(.string(text)) != nil) == isCode)
    }

    @Test func machineCodesInsideObjects() {
        #expect(DerivationReading.machineText(.object(["code": .string("RATE_LIMITED")])) == "RATE_LIMITED")
        #expect(DerivationReading.machineText(.object(["message": .string("MODEL_DOWN_NOW")])) == "MODEL_DOWN_NOW")
        #expect(DerivationReading.machineText(.object(["message": .string("try later")])) == nil)
        #expect(DerivationReading.machineText(.number(3)) == nil)
    }

    @Test func theStartedConversationComesFromEitherShape() throws {
        let nested = try #require(
            DerivationReading.startedConversation([
                "conversation": .object(["id": .string("c1"), "status": .string("running")])
            ]))
        #expect(nested.id == "c1")
        #expect(nested.status == .running)
        let flat = try #require(DerivationReading.startedConversation(["conversation_id": .string(" c2 ")]))
        #expect(flat.id == "c2")
        #expect(flat.status == .queued)
        #expect(DerivationReading.startedConversation(["conversation_id": .string("  ")]) == nil)
    }

    @Test func theBriefIsTakenFromTheFirstPlaceThatHoldsOne() {
        #expect(
            DerivationReading.briefText([
                "latest_result": .object(["briefing": .string("  ")]),
                "preview": .object(["briefing": .string("from preview")]),
                "memo": .object(["executive_summary": .string("from memo")]),
            ]) == "from preview")
        #expect(DerivationReading.briefText(["conclusion": .object(["reason": .string("why")])]) == "why")
        #expect(DerivationReading.briefText([:]) == nil)
    }

    @Test func terminalStatuses() {
        #expect(DerivationReading.terminal(.conclusive))
        #expect(DerivationReading.terminal(.error))
        #expect(!DerivationReading.terminal(.queued))
        #expect(!DerivationReading.terminal(.running))
        #expect(DerivationReading.polledStatus([:]) == .error)
    }

    @Test func thePromptNamesTheTickerAndCutsTheMessage() {
        let long = String(repeating: "x", count: 5000)
        let prompt = ResearchWriting.prompt(long, ticker: "MCD")
        #expect(prompt.hasPrefix("Focus ticker: $MCD. "))
        #expect(prompt.hasSuffix("User: " + String(repeating: "x", count: 4000)))
        #expect(!ResearchWriting.prompt("hi", ticker: nil).contains("Focus ticker"))
    }

    @Test func blankAndCodedBriefsAreNotShown() {
        #expect(ResearchWriting.acceptable("Revenue rose on store openings."))
        #expect(!ResearchWriting.acceptable(" \n"))
        #expect(!ResearchWriting.acceptable("MODEL_BUDGET_EXHAUSTED"))
    }

    @Test func anAnswerNotifiesItsOwnerOnceByReplyId() {
        let answer = ResearchArticle(
            id: "a1", role: "assistant", content: String(repeating: "y", count: 200),
            createdAt: "2026-12-03T00:00:00.000Z",
            provider: "openrouter")
        let push = ResearchWriting.push(userId: "u1", conversationId: "t1", answer: answer)
        #expect(push.id == "agent-a1")
        #expect(push.userIds == ["u1"])
        #expect(push.body.count == 160)
        #expect(push.title == "Your research is ready")
        #expect(push.dedupe.map(\.key) == ["a1"])
        #expect(push.data["threadId"] == .string("t1"))
    }
}
