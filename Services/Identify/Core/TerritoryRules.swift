import Contracts
import Finance

/// Territory's counting, free of I/O: completion is a set intersection of distinct tickers (so two shops of one
/// brand are one investable and `found` never exceeds the total), and a tile's co-op flips once enough distinct
/// finders caught there in one weekly cycle.
public enum TerritoryRules {
    /// Distinct finders in one tile and cycle that uncover it.
    public static let coopThreshold = 5

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
}
