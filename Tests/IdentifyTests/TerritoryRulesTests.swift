import Contracts
import Foundation
import Runtime
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

/// The co-op pool's split: whole XP, the earliest contributors take the remainder, and the shares sum to the pool.
struct CoopShareTests {
    @Test func sharesSumToThePoolAndTheEarliestTakeTheRemainder() {
        let five = TerritoryRules.coopShares(contributors: ["e", "d", "c", "b", "a"])
        #expect(five.map(\.userId) == ["e", "d", "c", "b", "a"])
        #expect(five.map(\.xp) == [20, 20, 20, 20, 20])
        let three = TerritoryRules.coopShares(pool: 100, contributors: ["first", "second", "third"])
        #expect(three.map(\.xp) == [34, 33, 33])
        for count in 1...12 {
            let ids = (0..<count).map { "u\($0)" }
            for pool in [0, 1, 7, 99, 100, 101] {
                let shares = TerritoryRules.coopShares(pool: pool, contributors: ids)
                #expect(shares.map(\.xp).reduce(0, +) == pool)
                #expect((shares.map(\.xp).max() ?? 0) - (shares.map(\.xp).min() ?? 0) <= 1)
            }
        }
        #expect(TerritoryRules.coopShares(contributors: []).isEmpty)
        #expect(TerritoryRules.coopShares(pool: -5, contributors: ["a", "b"]).map(\.xp) == [0, 0])
    }

    @Test func theAwardKeyNamesTileCycleAndContributor() throws {
        let start = try #require(Timestamp.parse("2026-09-12T12:00:00.000Z"))
        #expect(
            TerritoryRules.coopAwardKey(tile: "dr5reg", cycleStart: start, userId: "u0")
                == "tile_uncover:dr5reg:2026-09-12T12:00:00.000Z:u0")
        let keys = Set(
            [
                ("dr5reg", start, "u0"), ("dr5reg", start, "u1"), ("9q8yyk", start, "u0"),
                ("dr5reg", start + 604_800, "u0"),
            ]
            .map { TerritoryRules.coopAwardKey(tile: $0.0, cycleStart: $0.1, userId: $0.2) })
        #expect(keys.count == 4)
    }
}
