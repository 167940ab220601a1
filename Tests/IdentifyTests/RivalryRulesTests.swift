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
