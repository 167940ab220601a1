/// Progression and the universe summary (docs/COMPATIBILITY.md#progress; the original's `ProgressResponse` and
/// `UniverseSummary`), owned by Identify beside the finds journal.

/// A user's progression: XP, level (from XP), the UTC-day streak, freezes and earned badges.
public struct UserProgress: Codable, Sendable, Equatable {
    public var xp: Int
    public var level: Int
    public var streakDays: Int
    public var streakFreezes: Int
    /// The UTC day (`YYYY-MM-DD`) of the last find that moved the streak.
    public var lastFindDay: String?
    public var badges: [String]
    public var updatedAt: String

    public init(
        xp: Int, level: Int, streakDays: Int, streakFreezes: Int, lastFindDay: String?, badges: [String],
        updatedAt: String
    ) {
        self.xp = xp
        self.level = level
        self.streakDays = streakDays
        self.streakFreezes = streakFreezes
        self.lastFindDay = lastFindDay
        self.badges = badges
        self.updatedAt = updatedAt
    }
}

public struct ProgressResponse: Codable, Sendable, Equatable {
    public var progress: UserProgress
    public init(progress: UserProgress) { self.progress = progress }
}

/// The hypothetical $100-per-find portfolio: finds valued from their found price to today's quote.
public struct UniverseSummary: Codable, Sendable, Equatable {
    public var findCount: Int
    public var valuedFinds: Int
    public var hypotheticalBasis: Double
    public var hypotheticalValue: Double
    public var changePct: Double
    public var generatedAt: String
    public var sources: [Source]

    public init(
        findCount: Int, valuedFinds: Int, hypotheticalBasis: Double, hypotheticalValue: Double, changePct: Double,
        generatedAt: String, sources: [Source]
    ) {
        self.findCount = findCount
        self.valuedFinds = valuedFinds
        self.hypotheticalBasis = hypotheticalBasis
        self.hypotheticalValue = hypotheticalValue
        self.changePct = changePct
        self.generatedAt = generatedAt
        self.sources = sources
    }
}

/// `GET /v1/progress`, sent by the gateway to Identify.
public struct ProgressCommand: Codable, Sendable, Equatable {
    public static let name = "progress.get.v1"
    public var userId: String
    public init(userId: String) { self.userId = userId }
}

/// `GET /v1/universe/summary`, sent by the gateway to Identify.
public struct UniverseSummaryCommand: Codable, Sendable, Equatable {
    public static let name = "universe.summary.v1"
    public var userId: String
    public init(userId: String) { self.userId = userId }
}
