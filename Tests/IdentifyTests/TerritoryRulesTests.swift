import Contracts
import Testing

@testable import IdentifyCore

/// Territory's counting: distinct tickers on both sides, an intersection (never more found than the tile holds),
/// comparables standing in for private finds, and the co-op threshold.
struct TerritoryRulesTests {
    @Test func completionIsADistinctIntersection() {
        let counted = TerritoryRules.completion(
            tileTickers: ["SBUX", "sbux ", "CMG", "MCD", ""],
            findTickers: [
                (ticker: "SBUX", comparable: nil), (ticker: nil, comparable: " cmg"), (ticker: "AAPL", comparable: nil),
                (ticker: "SBUX", comparable: "MCD"), (ticker: nil, comparable: nil),
            ])
        // Two Starbucks are one investable; the second SBUX find's comparable is not its effective ticker.
        #expect(counted.investablesTotal == 3)
        #expect(counted.found == 2)
        let nothing = TerritoryRules.completion(tileTickers: [], findTickers: [(ticker: "SBUX", comparable: nil)])
        #expect(nothing.investablesTotal == 0 && nothing.found == 0)
    }

    @Test func coopUncoversAtTheThresholdAndLaterFindersDoNotJoin() {
        #expect(
            TerritoryRules.coop(distinctFinders: 0) == TerritoryCoop(contributors: 0, threshold: 5, uncovered: false))
        #expect(
            TerritoryRules.coop(distinctFinders: 4) == TerritoryCoop(contributors: 4, threshold: 5, uncovered: false))
        #expect(
            TerritoryRules.coop(distinctFinders: 5) == TerritoryCoop(contributors: 5, threshold: 5, uncovered: true))
        #expect(
            TerritoryRules.coop(distinctFinders: 9) == TerritoryCoop(contributors: 5, threshold: 5, uncovered: true))
    }
}
