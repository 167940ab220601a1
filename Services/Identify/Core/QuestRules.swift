import Contracts
import Finance
import Foundation

/// A journal row as the quest rules read it.
public struct QuestFind: Sendable, Equatable {
    public let createdAt: Date
    public let ticker: String?
    public let comparable: String?
    public let isPublic: Bool?
    /// The geohash-6 tile of the find's position, when it had one.
    public let tile: String?

    public init(createdAt: Date, ticker: String?, comparable: String?, isPublic: Bool?, tile: String?) {
        self.createdAt = createdAt
        self.ticker = ticker
        self.comparable = comparable
        self.isPublic = isPublic
        self.tile = tile
    }
}

/// A quest's claim on the award ledger: `key` pays `xp` once per user, ever.
public struct QuestAward: Sendable, Equatable {
    public let key: String
    public let xp: Int
}

/// The quest rules (docs/COMPATIBILITY.md#quests), free of I/O: which quests a user has on a UTC day or in a weekly
/// cycle, how far the journal got with them, and which awards a find makes due. The journal holds one row per company
/// identity, so a re-catch never moves a quest.
public enum QuestRules {
    /// A quest without its day: what it asks, what it pays.
    public struct Definition: Sendable, Equatable {
        public let kind: QuestKind
        public let title: String
        public let xp: Int
        public let target: Int
    }

    /// The daily catalog, in the order quests are listed.
    public static let daily: [Definition] = [
        Definition(kind: .catchAny, title: "Catch a company today", xp: 10, target: 1),
        Definition(kind: .catchPrivate, title: "Catch a private brand", xp: 20, target: 1),
        Definition(kind: .newTile, title: "Catch in a neighborhood you've never caught in", xp: 25, target: 1),
        Definition(kind: .newSector, title: "Fill an empty sector in your dex", xp: 25, target: 1),
    ]

    /// The weekly set: every kind, with targets a week of walking reaches.
    public static let weekly: [Definition] = [
        Definition(kind: .catchAny, title: "Catch 10 companies this week", xp: 50, target: 10),
        Definition(kind: .catchPrivate, title: "Catch 3 private brands this week", xp: 60, target: 3),
        Definition(kind: .newTile, title: "Catch in 3 neighborhoods you've never caught in", xp: 75, target: 3),
        Definition(kind: .newSector, title: "Fill 2 empty sectors in your dex", xp: 75, target: 2),
    ]

    /// A find's quests are paid while its day (or cycle) is the current one, or was until this long ago, so a consumer
    /// running a little behind still pays them across midnight; a back-dated find completes no past day's quest (as
    /// the original, which pays today's quests only).
    static let lag: TimeInterval = 15 * 60

    /// FNV-1a, 32 bits, over UTF-16 code units: the same set on every replica, nothing stored.
    static func hash(_ text: String) -> UInt32 {
        var hash: UInt32 = 0x811c_9dc5
        for unit in text.utf16 {
            hash ^= UInt32(unit)
            hash = hash &* 16_777_619
        }
        return hash
    }

    /// The user's 2 or 3 quests of `day` (`YYYY-MM-DD`), picked from the catalog by a hash of `userId|day` and listed
    /// in catalog order.
    public static func dailySet(userId: String, day: String) -> [Definition] {
        let seed = hash("\(userId)|\(day)")
        let count = 2 + Int(seed % 2)
        var pool = Array(daily.indices)
        var picked: [Int] = []
        var cursor = seed
        while picked.count < count, !pool.isEmpty {
            cursor = hash("\(cursor)|\(picked.count)")
            picked.append(pool.remove(at: Int(cursor % UInt32(pool.count))))
        }
        return picked.sorted().map { daily[$0] }
    }

    /// The daily quests of `day` evaluated against the journal: finds of that UTC day count, earlier ones are the
    /// baseline for new tiles and sectors, later ones count for nothing.
    public static func dailyQuests(userId: String, day: String, journal: [QuestFind], seed: BrandSeed = .shared)
        -> [Quest]
    {
        let window = journal.filter { dayOf($0.createdAt) == day }
        let prior = journal.filter { dayOf($0.createdAt) < day }
        return dailySet(userId: userId, day: day).map {
            evaluate($0, id: "\(day):\($0.kind.rawValue)", window: window, prior: prior, seed: seed)
        }
    }

    /// The weekly quests of `cycle`, evaluated the same way over `(start, end]`.
    public static func weeklyQuests(cycle: WeeklyCycle.Window, journal: [QuestFind], seed: BrandSeed = .shared)
        -> [Quest]
    {
        let window = journal.filter { cycle.contains($0.createdAt) }
        let prior = journal.filter { $0.createdAt <= cycle.start }
        let id = "week-\(dayOf(cycle.end))"
        return weekly.map { evaluate($0, id: "\(id):\($0.kind.rawValue)", window: window, prior: prior, seed: seed) }
    }

    /// The ledger key of a completed quest: `quest:<id>` (`quest:<day>:<kind>`, `quest:week-<day>:<kind>`).
    public static func awardKey(_ quest: Quest) -> String { "quest:\(quest.id)" }

    /// The awards due after a find caught at `caughtAt` (capped at `now`): the completed quests of its day and of its
    /// weekly cycle, while that day or cycle is current (or was, `lag` ago).
    public static func dueAwards(
        userId: String, caughtAt: Date, now: Date, journal: [QuestFind], seed: BrandSeed = .shared
    ) -> [QuestAward] {
        let at = min(caughtAt, now)
        var quests: [Quest] = []
        let day = dayOf(at)
        if day == dayOf(now) || day == dayOf(now - lag) {
            quests += dailyQuests(userId: userId, day: day, journal: journal, seed: seed)
        }
        let cycle = WeeklyCycle.window(containing: at)
        if cycle.end == WeeklyCycle.window(containing: now).end || cycle.contains(now - lag) {
            quests += weeklyQuests(cycle: cycle, journal: journal, seed: seed)
        }
        return quests.filter(\.completed).map { QuestAward(key: awardKey($0), xp: $0.xp) }
    }

    /// A private find: the brand is flagged unlisted, or it has a comparable and no ticker of its own.
    static func isPrivate(_ find: QuestFind) -> Bool {
        if find.isPublic == false { return true }
        return symbol(find.ticker) == nil && symbol(find.comparable) != nil
    }

    static func evaluate(_ definition: Definition, id: String, window: [QuestFind], prior: [QuestFind], seed: BrandSeed)
        -> Quest
    {
        let raw: Int
        switch definition.kind {
        case .catchAny: raw = window.count
        case .catchPrivate: raw = window.filter(isPrivate).count
        case .newTile: raw = tiles(window).subtracting(tiles(prior)).count
        case .newSector: raw = sectors(window, seed: seed).subtracting(sectors(prior, seed: seed)).count
        }
        return Quest(
            id: id, kind: definition.kind, title: definition.title, xp: definition.xp,
            completed: raw >= definition.target, progress: min(raw, definition.target), target: definition.target)
    }

    static func tiles(_ finds: [QuestFind]) -> Set<String> { Set(finds.compactMap { symbol($0.tile) }) }

    /// The seed sectors of the finds' effective tickers (ticker, else comparable).
    static func sectors(_ finds: [QuestFind], seed: BrandSeed) -> Set<String> {
        let tickers = Set(
            finds.compactMap { RarityClassifier.effectiveTicker(ticker: $0.ticker, comparable: $0.comparable) })
        return Set(seed.sectorTickers.filter { !$0.value.isDisjoint(with: tickers) }.keys)
    }

    static func symbol(_ value: String?) -> String? {
        guard let trimmed = value?.trimmingCharacters(in: .whitespaces), !trimmed.isEmpty else { return nil }
        return trimmed
    }

    static func dayOf(_ date: Date) -> String { ProgressRules.day(date) }
}
