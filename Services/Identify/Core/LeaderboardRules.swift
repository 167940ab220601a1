import Contracts

/// The weekly leaderboard's ranking, free of I/O: score descending, then user id ascending (a stable tiebreak), ranks
/// 1-based over every scored user, and the caller's row always present.
public enum LeaderboardRules {
    public static let maxLimit = 50

    /// The top `limit` of `scores` (user id → early-find XP; users without a positive score are not ranked) and the
    /// caller's own row: its rank when scored, else scored users + 1 with score 0.
    public static func rank(scores: [String: Int], caller: String, limit: Int) -> (
        top: [ScoredUser], caller: ScoredUser
    ) {
        let ordered = scores.filter { $0.value > 0 }.sorted { a, b in
            a.value != b.value ? a.value > b.value : a.key < b.key
        }
        let ranked = ordered.enumerated().map {
            ScoredUser(userId: $0.element.key, score: $0.element.value, rank: $0.offset + 1)
        }
        let own = ranked.first { $0.userId == caller } ?? ScoredUser(userId: caller, score: 0, rank: ranked.count + 1)
        return (Array(ranked.prefix(max(1, min(limit, maxLimit)))), own)
    }
}
