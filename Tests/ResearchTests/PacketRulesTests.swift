import Contracts
import Foundation
import ResearchCore
import Testing

/// Packet builds' rules without a server: the build's day, the engine's body, what an engine answer means for the job,
/// the push, the exports' names and text.
struct PacketRulesTests {
    static let owner = ResearchOwner(userId: "u1", deviceId: nil)

    @Test func theDayIsSituatesAsOfElseTheUTCDay() {
        let noon = Date(timeIntervalSince1970: 1_764_763_200)  // 2025-12-03T12:00:00Z
        #expect(PacketRules.day(kind: .prism, asOf: "2024-01-02", now: noon) == "2025-12-03")
        #expect(PacketRules.day(kind: .situate, asOf: "2024-01-02", now: noon) == "2024-01-02")
        #expect(PacketRules.day(kind: .situate, asOf: nil, now: noon) == "2025-12-03")
    }

    @Test func theEngineIsSentOnlyWhatWasAsked() {
        let plain = PacketBuildCommand(
            kind: .prism, ticker: "MCD", force: false, includeMemo: nil, asOf: "2024-01-02", owner: Self.owner)
        #expect(PacketRules.upstreamBody(plain) == ["ticker": .string("MCD")])
        let full = PacketBuildCommand(
            kind: .situate, ticker: "KO", force: true, includeMemo: false, asOf: "2024-01-02", owner: Self.owner)
        #expect(
            PacketRules.upstreamBody(full) == [
                "ticker": .string("KO"), "force": .bool(true), "include_memo": .bool(false),
                "as_of": .string("2024-01-02"),
            ])
    }

    @Test func engineAnswersDecideTheJob() {
        #expect(PacketRules.verdict(status: 200, body: Array(#"{"ticker":"MCD"}"#.utf8), kind: .prism) == .stored)
        if case .retry = PacketRules.verdict(status: 200, body: Array("oops".utf8), kind: .prism) {
        } else {
            Issue.record("a 200 without a packet is retried")
        }
        if case .retry = PacketRules.verdict(status: 0, body: [], kind: .prism) {
        } else {
            Issue.record("no answer is retried")
        }
        if case .retry = PacketRules.verdict(status: 503, body: [], kind: .situate) {
        } else {
            Issue.record("a busy engine is retried")
        }
        #expect(
            PacketRules.verdict(status: 404, body: Array(#"{"error":" unknown symbol "}"#.utf8), kind: .prism)
                == .refused("unknown symbol"))
        #expect(
            PacketRules.verdict(status: 400, body: [], kind: .prism) == .refused("Prism engine rejected the request"))
    }

    @Test func thePushIsOncePerBuildGenerationAndOwner() {
        let push = PacketRules.push(userId: "u1", kind: .prism, ticker: "MCD", buildId: "pb_1", generation: 2)
        #expect(push.eventKey == .memoFinished)
        #expect(push.id == "packet-pb_1-2-u1")
        #expect(push.dedupe.map(\.key) == ["prism-pb_1-2"])
        #expect(push.data["ticker"] == .string("MCD"))
    }

    @Test func exportsAreNamedSafelyAndReadAsText() {
        #expect(PacketRules.fileName(kind: .situate, ticker: "X:BTCUSD", format: "pdf") == "situate-X_BTCUSD.pdf")
        let text = PacketRules.text(
            ["ticker": .string("MCD"), "memo": .object(["one_line": .string("Steady."), "conviction": .number(0.6)])],
            kind: .prism, ticker: "MCD")
        #expect(text.hasPrefix("Prism packet — $MCD\nResearch only. Not investment advice.\n"))
        #expect(text.contains("memo:\n  conviction: 0.6\n  one_line: Steady.\nticker: MCD\n"))
        #expect(PacketRules.notFound(.situate)["code"] == "situate_packet_not_found")
    }
}
