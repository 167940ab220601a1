import Contracts
import Foundation
import Runtime
import Testing

@testable import IdentifyCore

/// Rivalries' pure decisions: symbols, the rival taken from comparables (never invented), and the Monday rounds.
struct RivalryRulesTests {
    static func comparable(_ ticker: String) -> Comparable {
        Comparable(ticker: ticker, name: ticker, score: 0.8, reasoning: "peer", sources: [])
    }

    @Test func symbolsAreTrimmedUpperCasedAndPlausible() throws {
        let checked = try RivalryRules.symbols(ticker: " nvda ", rivalTicker: "amd").get()
        #expect(checked.ticker == "NVDA" && checked.rival == "AMD")
        #expect(try RivalryRules.symbols(ticker: "NVDA", rivalTicker: "  ").get().rival == nil)
        #expect(try RivalryRules.symbols(ticker: "NVDA", rivalTicker: nil).get().rival == nil)
        for bad in ["", "TOOLONG", "BRK.B", "A1", "MOUNT", "THE"] {
            #expect(throws: APIError.self) { try RivalryRules.symbols(ticker: bad, rivalTicker: "AMD").get() }
        }
        #expect(throws: RivalryRules.invalidRival) {
            try RivalryRules.symbols(ticker: "NVDA", rivalTicker: "$AMD").get()
        }
        #expect(throws: RivalryRules.invalidTicker) {
            try RivalryRules.symbols(ticker: "nv da", rivalTicker: nil).get()
        }
    }

    @Test func theRivalIsTheFirstPlausibleOtherComparable() {
        let picks = ["NVDA", "INC", "amd", "INTC"].map(Self.comparable)
        #expect(RivalryRules.rival(for: "NVDA", among: picks) == "AMD")
        #expect(RivalryRules.rival(for: "NVDA", among: ["NVDA", "CEO"].map(Self.comparable)) == nil)
        #expect(RivalryRules.rival(for: "NVDA", among: []) == nil)
    }

    @Test func roundsAreKeyedByTheMondayUTC() throws {
        func at(_ iso: String) throws -> Date { try #require(Timestamp.parse(iso)) }
        #expect(RivalryRules.weekStart(try at("2026-12-07T00:00:00Z")) == "2026-12-07")  // a Monday
        #expect(RivalryRules.weekStart(try at("2026-12-05T12:00:00Z")) == "2026-11-30")  // Saturday noon
        #expect(RivalryRules.weekStart(try at("2026-12-06T23:59:59Z")) == "2026-11-30")  // Sunday night
        #expect(RivalryRules.weekStart(try at("1970-01-01T00:00:00Z")) == "1969-12-29")
        #expect(RivalryRules.nextWeekStart(try at("2026-12-05T12:00:00Z")) == "2026-12-07")
    }
}

/// The weekly close's pure half: the week's change from closes, the outcome, the pick, the slot and the push.
struct RivalryCloseRulesTests {
    @Test func theWeekIsTheLastFiveSessionsAndNeverInvented() throws {
        let change = try #require(RivalryClose.weeklyChangePct(closes: [90, 100, 1, 2, 3, 4, 110]))
        #expect(abs(change - 10) < 1e-9)  // 110 against 100, five sessions before the last
        #expect(RivalryClose.weeklyChangePct(closes: [100]) == nil)
        #expect(RivalryClose.weeklyChangePct(closes: [0, 0, 0, 0, 0, 0, 5]) == nil)
        #expect(RivalryClose.weeklyChangePct(closes: [100, .nan, 105]).map { abs($0 - 5) < 1e-9 } == true)
    }

    @Test func outcomesFromTheTickerSideWithADrawBand() throws {
        #expect(try #require(RivalryClose.outcome(tickerPct: 3, rivalPct: 1)).outcome == .win)
        #expect(try #require(RivalryClose.outcome(tickerPct: -1, rivalPct: 1)).outcome == .loss)
        #expect(try #require(RivalryClose.outcome(tickerPct: 1.1, rivalPct: 1)).outcome == .draw)
        #expect(RivalryClose.outcome(tickerPct: .infinity, rivalPct: 1) == nil)
        #expect(RivalryClose.pickWasRight(.ticker, .win) && RivalryClose.pickWasRight(.rival, .loss))
        #expect(!RivalryClose.pickWasRight(.ticker, .loss) && !RivalryClose.pickWasRight(.rival, .draw))
        #expect(!RivalryClose.pickWasRight(nil, .win))
    }

    @Test func theSlotNamesTheClosingInstant() {
        #expect(
            RivalryClose.slotInstant("identify.rivalries.close@2026-12-05T12:00Z")
                == Timestamp.parse("2026-12-05T12:00:00Z"))
        #expect(RivalryClose.slotInstant(nil) == nil && RivalryClose.slotInstant("job@later") == nil)
    }

    @Test func thePushReportsTheWeekAndNeverAdvises() {
        let closed = Rivalry(
            id: "r1", ticker: "NVDA", rivalTicker: "AMD", wins: 3, losses: 1, draws: 0, currentPick: nil,
            weekStart: "2026-12-07", createdAt: "2026-11-01T00:00:00.000Z")
        let win = RivalryClose.push(userId: "u", closed: closed, outcome: .win, diffPp: 2.34, weekStart: "2026-11-30")
        #expect(win.title == "$NVDA vs $AMD")
        #expect(win.body == "Your NVDA beat AMD by 2.3pp this week — record 3-1.")
        #expect(win.eventKey == nil && win.userIds == ["u"])
        #expect(win.dedupe == [PushDedupe(slot: "rivalry:r1", key: "2026-11-30")])
        #expect(win.data["kind"] == .string("rivalry_weekly_close") && win.data["weekStart"] == .string("2026-11-30"))
        var drawn = closed
        drawn.draws = 2
        let loss = RivalryClose.push(userId: "u", closed: drawn, outcome: .loss, diffPp: -1.26, weekStart: "w")
        #expect(loss.body == "AMD beat your NVDA by 1.3pp this week — record 3-1-2.")
        let level = RivalryClose.push(userId: "u", closed: closed, outcome: .draw, diffPp: 0.1, weekStart: "w")
        #expect(level.body == "Your NVDA and AMD finished level this week — record 3-1.")
        for push in [win, loss, level] {
            for word in ["buy", "sell", "should", "hold"] { #expect(!push.body.lowercased().contains(word)) }
        }
    }
}
