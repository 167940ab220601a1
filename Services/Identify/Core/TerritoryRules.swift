import Contracts
import Finance
import Foundation
import Runtime

/// Territory's counting, free of I/O: completion is a set intersection of distinct tickers (so two shops of one
/// brand are one investable and `found` never exceeds the total), and a tile's co-op flips once enough distinct
/// finders caught there in one weekly cycle, which pays them the co-op pool.
public enum TerritoryRules {
    /// Distinct finders in one tile and cycle that uncover it.
    public static let coopThreshold = 5
    /// The XP an uncovered tile shares among its contributors, once per cycle.
    public static let coopPoolXP = 100

    /// The tile's distinct tickers, and how many of them are among the caller's effective tickers (ticker, else
    /// comparable; trimmed and upper-cased on both sides).
    public static func completion(tileTickers: [String], findTickers: [(ticker: String?, comparable: String?)])
        -> (investablesTotal: Int, found: Int)
    {
        let investables = Set(tileTickers.compactMap { RarityClassifier.effectiveTicker(ticker: $0, comparable: nil) })
        let caught = Set(
            findTickers.compactMap { RarityClassifier.effectiveTicker(ticker: $0.ticker, comparable: $0.comparable) }
        )
        return (investables.count, investables.intersection(caught).count)
    }

    /// The co-op state from the distinct finders counted this cycle: finders after the threshold do not join.
    public static func coop(distinctFinders: Int) -> TerritoryCoop {
        let contributors = min(max(0, distinctFinders), coopThreshold)
        return TerritoryCoop(
            contributors: contributors, threshold: coopThreshold, uncovered: contributors >= coopThreshold)
    }

    /// The pool's shares, in the order of `contributors` (earliest first): each gets the whole-XP floor of an equal
    /// share and the earliest `pool mod n` one more, so the shares always sum to exactly the pool.
    public static func coopShares(pool: Int = coopPoolXP, contributors: [String]) -> [(userId: String, xp: Int)] {
        guard !contributors.isEmpty else { return [] }
        let whole = max(pool, 0)
        let (base, remainder) = whole.quotientAndRemainder(dividingBy: contributors.count)
        return contributors.enumerated().map { (userId: $0.element, xp: base + ($0.offset < remainder ? 1 : 0)) }
    }

    /// The award key of one contributor's share: scoped to the tile, the cycle and the contributor, so a share is
    /// payable once.
    public static func coopAwardKey(tile: String, cycleStart: Date, userId: String) -> String {
        "tile_uncover:\(tile):\(Timestamp.iso8601(cycleStart)):\(userId)"
    }
}
