import Contracts
import Foundation
import ResearchCore
import Testing

/// How stored turns are shown: chart tickers, the pending and blocked answers, the memo's layout, and the wire shape
/// the client decodes (the conversation reference's null `pdf_url`, the constant safety notice).
struct ResearchProjectionTests {
    @Test func chartTickersPutTheRequestFirstAndSkipCommonWords() {
        let tickers = ResearchProjection.chartTickers(
            ticker: "MCD", texts: ["THE CEO said $YUM and QSR beat MCD. USD and ETF flows, then WEN, DPZ and SBUX."])
        #expect(tickers == ["MCD", "YUM", "QSR", "WEN"])
        #expect(ResearchProjection.chartTickers(ticker: nil, texts: ["no symbols here, I think"]).isEmpty)
        #expect(ResearchProjection.chartTickers(ticker: nil, texts: ["$F rose"]) == ["F"])
    }

    @Test func aBlockedReasonIsProseNeverAMachineCode() {
        #expect(ResearchProjection.blockedReason("MODEL_BUDGET_EXHAUSTED") == ResearchProjection.blockedFallback)
        #expect(ResearchProjection.blockedReason("  ") == ResearchProjection.blockedFallback)
        #expect(ResearchProjection.blockedReason("Needs a filing we cannot read.") == "Needs a filing we cannot read.")
        let body = ResearchProjection.blockedBody(reason: "why", conversationId: "c1")
        #expect(body == ["error": "why", "code": "research_blocked", "conversationId": "c1", "status": "blocked"])
    }

    @Test func theChatAnswerHasTheClientsShape() throws {
        let question = ResearchArticle(id: "rm_1", role: "user", content: "Is MCD resilient?", createdAt: "t")
        let reference = ResearchConversationRef(id: "rc_1", status: .running, pdfURL: nil)
        let pending = AgentChatResponse(
            conversation: reference, clientMessageId: "m1", ticker: "MCD",
            article: ResearchProjection.pendingArticle(conversationId: "rc_1", createdAt: "t", ticker: "MCD"),
            userMessage: ResearchProjection.userMessage(question, clientMessageId: "m1", ticker: "MCD"), pending: true)
        let json = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(pending)) as? [String: Any])
        let conversation = try #require(json["conversation"] as? [String: Any])
        #expect(conversation["pdf_url"] is NSNull)
        #expect(conversation["schema_version"] as? String == "research_conversation_ref_v1")
        #expect(conversation["conversation_id"] as? String == "rc_1")
        #expect(json["pending"] as? Bool == true)
        #expect(json["provider"] as? String == "derivation-research-console")
        #expect(json["threadId"] as? String == "rc_1")
        #expect((json["safety"] as? [String: Bool]) == ["liveTradingForbidden": true, "orderSubmissionAllowed": false])
        let user = try #require(json["userMessage"] as? [String: Any])
        #expect(user["id"] as? String == "user-m1")
        #expect(user["chartTickers"] as? [String] == ["MCD"])
        let article = try #require(json["article"] as? [String: Any])
        #expect(article["content"] as? String == ResearchProjection.stillRunning)
        for field in ["interesting", "ideas", "toolsUsed", "sources"] {
            #expect((article[field] as? [Any])?.isEmpty == true, "\(field)")
        }
    }

    @Test func theMemoLeavesOutThePlainSentenceAndNamesTheFileSafely() {
        var thread = AgentThreadSummary(
            id: "rc/1", title: "$MCD research", createdAt: "2026-01-02T00:00:00.000Z",
            updatedAt: "2026-01-03T10:00:00.000Z", preview: "", status: .conclusive)
        thread.messages = [
            ResearchArticle(id: "1", role: "user", content: "Q", createdAt: ""),
            ResearchArticle(id: "2", role: "assistant", content: "A", createdAt: "", provider: "derivation"),
            ResearchArticle(id: "3", role: "assistant", content: "sorry", createdAt: "", provider: "unavailable"),
        ]
        let texts = ResearchMemoLayout.blocks(thread).map(\.text)
        #expect(texts.first == "$MCD research")
        #expect(texts.contains { $0.contains("2026-01-03") && $0.contains("Not investment advice") })
        #expect(Array(texts.dropFirst(2)) == ["You", "Q", "Research", "A"])
        #expect(ResearchMemoLayout.fileName("rc/1") == "research-rc_1.pdf")
    }

    @Test func progressIsReadFromEitherPlace() {
        let top = DerivationReading.progress([
            "phase": .string("gathering"), "completed_iterations": .number(2), "max_iterations": .number(6),
        ])
        #expect(top.phase == "gathering")
        #expect(top.progress == ResearchProgress(completedIterations: 2, maxIterations: 6))
        let nested = DerivationReading.progress(["progress": .object(["completed_iterations": .number(1)])])
        #expect(nested.progress?.completedIterations == 1)
        #expect(DerivationReading.progress([:]).progress == nil)
        #expect(
            DerivationReading.blocker(["preview": .object(["blocker": .object(["reason": .string("no data")])])])
                == "no data")
    }
}
