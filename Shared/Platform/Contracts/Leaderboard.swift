/// The weekly leaderboard (docs/COMPATIBILITY.md#leaderboard): early-find (pioneer) XP inside the weekly cycle, shown
/// by handle only.

/// One row as the client sees it: never a user id or email.
public struct LeaderboardRow: Codable, Sendable, Equatable {
    public var handle: String
    public var earlyFindScore: Int
    public var rank: Int
    public var isYou: Bool

    public init(handle: String, earlyFindScore: Int, rank: Int, isYou: Bool) {
        self.handle = handle
        self.earlyFindScore = earlyFindScore
        self.rank = rank
        self.isYou = isYou
    }
}

/// `GET /v1/leaderboard/weekly`.
public struct LeaderboardResponse: Codable, Sendable, Equatable {
    public var cycleStart: String
    public var cycleEnd: String
    public var rows: [LeaderboardRow]

    public init(cycleStart: String, cycleEnd: String, rows: [LeaderboardRow]) {
        self.cycleStart = cycleStart
        self.cycleEnd = cycleEnd
        self.rows = rows
    }
}

/// A ranked user between Identify and the gateway (which swaps the id for a handle).
public struct ScoredUser: Codable, Sendable, Equatable {
    public var userId: String
    public var score: Int
    /// 1-based over every scored user; scored users + 1 for a caller without a score.
    public var rank: Int

    public init(userId: String, score: Int, rank: Int) {
        self.userId = userId
        self.score = score
        self.rank = rank
    }
}

/// Identify's answer to `WeeklyScoresCommand`: the top rows and the caller's own (always present).
public struct WeeklyScores: Codable, Sendable, Equatable {
    public var cycleStart: String
    public var cycleEnd: String
    public var top: [ScoredUser]
    public var caller: ScoredUser

    public init(cycleStart: String, cycleEnd: String, top: [ScoredUser], caller: ScoredUser) {
        self.cycleStart = cycleStart
        self.cycleEnd = cycleEnd
        self.top = top
        self.caller = caller
    }
}

/// `GET /v1/leaderboard/weekly`, sent by the gateway to Identify: the cycle's top `limit` and the caller's row.
public struct WeeklyScoresCommand: Codable, Sendable, Equatable {
    public static let name = "leaderboard.weekly.scores.v1"
    public var userId: String
    public var limit: Int

    public init(userId: String, limit: Int) {
        self.userId = userId
        self.limit = limit
    }
}
