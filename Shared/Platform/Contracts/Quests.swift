/// Daily and weekly quests (docs/COMPATIBILITY.md#quests), decided by Identify from the finds journal; a client never
/// reports a completion.

/// The four things a quest can ask for, each decidable from the finds alone.
public enum QuestKind: String, Codable, Sendable, CaseIterable {
    case catchAny = "catch_any"
    case catchPrivate = "catch_private"
    case newTile = "new_tile"
    case newSector = "new_sector"
}

/// One quest as the client renders it: `progress` is capped at `target`, `completed` is the uncapped comparison.
public struct Quest: Codable, Sendable, Equatable {
    public var id: String
    public var kind: QuestKind
    public var title: String
    public var xp: Int
    public var completed: Bool
    public var progress: Int
    public var target: Int

    public init(id: String, kind: QuestKind, title: String, xp: Int, completed: Bool, progress: Int, target: Int) {
        self.id = id
        self.kind = kind
        self.title = title
        self.xp = xp
        self.completed = completed
        self.progress = progress
        self.target = target
    }
}

/// `GET /v1/quests`: today's (UTC) set and the XP its quests have already earned.
public struct QuestsResponse: Codable, Sendable, Equatable {
    public var quests: [Quest]
    public var day: String
    public var xpGrantedToday: Int

    public init(quests: [Quest], day: String, xpGrantedToday: Int) {
        self.quests = quests
        self.day = day
        self.xpGrantedToday = xpGrantedToday
    }
}

/// `GET /v1/quests/weekly`: the set of the weekly cycle that ends at `cycleEnd` (a Saturday, 12:00 UTC).
public struct WeeklyQuestsResponse: Codable, Sendable, Equatable {
    public var cycleStart: String
    public var cycleEnd: String
    public var quests: [Quest]

    public init(cycleStart: String, cycleEnd: String, quests: [Quest]) {
        self.cycleStart = cycleStart
        self.cycleEnd = cycleEnd
        self.quests = quests
    }
}

/// `GET /v1/quests`, sent by the gateway to Identify.
public struct QuestsCommand: Codable, Sendable, Equatable {
    public static let name = "quests.daily.get.v1"
    public var userId: String
    public init(userId: String) { self.userId = userId }
}

/// `GET /v1/quests/weekly`, sent by the gateway to Identify.
public struct WeeklyQuestsCommand: Codable, Sendable, Equatable {
    public static let name = "quests.weekly.get.v1"
    public var userId: String
    public init(userId: String) { self.userId = userId }
}
