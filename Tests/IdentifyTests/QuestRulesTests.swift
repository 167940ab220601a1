import Contracts
import Finance
import Foundation
import Runtime
import Testing

@testable import IdentifyCore

/// The quest rules and the weekly cycle, with a seed of their own and fixed instants. No stack needed.
struct QuestRulesTests {
    static let seed = BrandSeed(entries: [
        "cafe": SeedEntry(ticker: "CAFE", exchange: "NYSE", parent: "Cafe Co", sector: "Consumer Discretionary"),
        "bank": SeedEntry(ticker: "BANK", exchange: "NYSE", parent: "Bank Co", sector: "Financials"),
        "chip": SeedEntry(ticker: "CHIP", exchange: "NASDAQ", parent: "Chip Co", sector: "Information Technology"),
    ])

    static func at(_ iso: String) throws -> Date { try #require(Timestamp.parse(iso)) }

    static func find(
        _ iso: String, ticker: String? = nil, comparable: String? = nil, isPublic: Bool? = true, tile: String? = nil
    ) throws -> QuestFind {
        QuestFind(createdAt: try at(iso), ticker: ticker, comparable: comparable, isPublic: isPublic, tile: tile)
    }

    /// A user whose set on `day` holds every kind in `kinds` (searched, not assumed).
    static func user(holding kinds: Set<QuestKind>, on day: String) throws -> String {
        try #require(
            (0..<500).map { "user-\($0)" }.first { user in
                kinds.isSubset(of: Set(QuestRules.dailySet(userId: user, day: day).map(\.kind)))
            })
    }

    @Test func fnv1aMatchesTheReferenceVectors() {
        #expect(QuestRules.hash("") == 0x811c_9dc5)
        #expect(QuestRules.hash("a") == 0xe40c_292c)
        #expect(QuestRules.hash("foobar") == 0xbf9c_f968)
    }

    @Test func aDaysSetIsStableDistinctAndInCatalogOrder() {
        var sizes = Set<Int>()
        var sets = Set<[QuestKind]>()
        for index in 1...28 {
            let day = String(format: "2026-02-%02d", index)
            let set = QuestRules.dailySet(userId: "user-1", day: day)
            #expect(set == QuestRules.dailySet(userId: "user-1", day: day))
            let kinds = set.map(\.kind)
            #expect(Set(kinds).count == kinds.count)
            let order = kinds.compactMap { kind in QuestRules.daily.firstIndex { $0.kind == kind } }
            #expect(order == order.sorted())
            sizes.insert(set.count)
            sets.insert(kinds)
        }
        #expect(sizes == [2, 3])
        #expect(sets.count > 1)
    }

    @Test func todaysFindsCountAndPriorOnesAreTheBaseline() throws {
        let day = "2026-03-04"
        let user = try Self.user(holding: [.catchPrivate, .newTile], on: day)
        let journal = [
            try Self.find("2026-03-01T10:00:00Z", ticker: "CAFE", tile: "dr5ru7"),
            // Today: a known tile, a private brand (comparable, no ticker) in a new tile; tomorrow's counts for nothing.
            try Self.find("2026-03-04T09:00:00Z", ticker: "BANK", tile: "dr5ru7"),
            try Self.find("2026-03-04T10:00:00Z", comparable: "CAFE", isPublic: nil, tile: "9q5ctr"),
            try Self.find("2026-03-05T10:00:00Z", ticker: "CHIP", isPublic: false, tile: "u4pruy"),
        ]
        let quests = QuestRules.dailyQuests(userId: user, day: day, journal: journal, seed: Self.seed)
        let byKind = Dictionary(uniqueKeysWithValues: quests.map { ($0.kind, $0) })
        #expect(byKind[.catchPrivate]?.completed == true)
        #expect(byKind[.catchPrivate]?.id == "\(day):catch_private")
        #expect(byKind[.newTile]?.progress == 1)
        if let any = byKind[.catchAny] { #expect(any.progress == 1 && any.completed) }
        // BANK's Financials is new today; CAFE's sector was held before.
        if let sector = byKind[.newSector] { #expect(sector.completed) }
    }

    @Test func nothingTodayCompletesNothing() throws {
        let day = "2026-03-04"
        let user = try Self.user(holding: [.newSector], on: day)
        // Today's only find is in a sector held before: new_sector stays open.
        let journal = [
            try Self.find("2026-03-02T10:00:00Z", ticker: "CAFE"),
            try Self.find("2026-03-04T10:00:00Z", comparable: "CAFE"),
        ]
        let quest = try #require(
            QuestRules.dailyQuests(userId: user, day: day, journal: journal, seed: Self.seed).first {
                $0.kind == .newSector
            })
        #expect(!quest.completed && quest.progress == 0 && quest.target == 1)
    }

    @Test func theCycleClosesOnSaturdayNoonUTC() throws {
        // 2026-03-07 is a Saturday.
        let onTheBoundary = WeeklyCycle.window(containing: try Self.at("2026-03-07T12:00:00Z"))
        #expect(onTheBoundary.end == (try Self.at("2026-03-07T12:00:00Z")))
        #expect(onTheBoundary.start == (try Self.at("2026-02-28T12:00:00Z")))
        let justAfter = WeeklyCycle.window(containing: try Self.at("2026-03-07T12:00:00.001Z"))
        #expect(justAfter.end == (try Self.at("2026-03-14T12:00:00Z")))
        let sunday = WeeklyCycle.window(containing: try Self.at("2026-03-08T00:30:00Z"))
        #expect(sunday.end == (try Self.at("2026-03-14T12:00:00Z")))
        #expect(!sunday.contains(sunday.start) && sunday.contains(sunday.end))
        let beforeEpoch = WeeklyCycle.window(containing: try Self.at("1969-12-30T00:00:00Z"))
        #expect(beforeEpoch.end == (try Self.at("1970-01-03T12:00:00Z")))
    }

    @Test func weeklyQuestsCountTheCycleOnly() throws {
        let cycle = WeeklyCycle.window(containing: try Self.at("2026-03-10T00:00:00Z"))
        let journal = [
            try Self.find("2026-03-07T11:00:00Z", ticker: "CAFE", tile: "aaaaaa"),
            try Self.find("2026-03-08T11:00:00Z", ticker: "BANK", tile: "aaaaaa"),
            try Self.find("2026-03-09T11:00:00Z", ticker: "CHIP", tile: "bbbbbb"),
            try Self.find("2026-03-14T12:00:00Z", comparable: "CAFE", isPublic: false, tile: "cccccc"),
            try Self.find("2026-03-14T12:00:01Z", ticker: "ZZZZ", isPublic: false, tile: "dddddd"),
        ]
        let quests = QuestRules.weeklyQuests(cycle: cycle, journal: journal, seed: Self.seed)
        #expect(quests.map(\.kind) == QuestKind.allCases)
        #expect(quests.map(\.id).allSatisfy { $0.hasPrefix("week-2026-03-14:") })
        let progress = Dictionary(uniqueKeysWithValues: quests.map { ($0.kind, $0.progress) })
        #expect(progress == [.catchAny: 3, .catchPrivate: 1, .newTile: 2, .newSector: 2])
        #expect(quests.first { $0.kind == .newSector }?.completed == true)
        #expect(quests.first { $0.kind == .catchAny }?.completed == false)
    }

    @Test func awardsAreDueForTheFindsDayAndCycleWithinTheGrace() throws {
        let day = "2026-03-04"
        let user = try Self.user(holding: [.catchPrivate], on: day)
        let journal = [try Self.find("2026-03-04T10:00:00Z", comparable: "CAFE", isPublic: false, tile: "aaaaaa")]
        let due = QuestRules.dueAwards(
            userId: user, caughtAt: try Self.at("2026-03-04T10:00:00Z"), now: try Self.at("2026-03-04T10:00:01Z"),
            journal: journal, seed: Self.seed)
        let expected = QuestRules.dailyQuests(userId: user, day: day, journal: journal, seed: Self.seed)
            .filter(\.completed).map { QuestAward(key: "quest:\($0.id)", xp: $0.xp) }
        #expect(!expected.isEmpty)
        #expect(Array(due.prefix(expected.count)) == expected)
        #expect(due.contains(QuestAward(key: "quest:\(day):catch_private", xp: 20)))
        // A consumer minutes behind still pays across midnight; a find dated a day back completes no old day's quest.
        let late = QuestRules.dueAwards(
            userId: user, caughtAt: try Self.at("2026-03-04T10:00:00Z"), now: try Self.at("2026-03-05T00:10:00Z"),
            journal: journal, seed: Self.seed)
        #expect(late == due)
        let backdated = QuestRules.dueAwards(
            userId: user, caughtAt: try Self.at("2026-03-04T10:00:00Z"), now: try Self.at("2026-03-05T00:20:00Z"),
            journal: journal, seed: Self.seed)
        #expect(!backdated.contains { $0.key.hasPrefix("quest:\(day):") })
    }
}

/// The XP event schedule: Sector Saturday, its window, its rotating sector and its multiplier.
struct XPEventsTests {
    static func at(_ iso: String) throws -> Date { try #require(Timestamp.parse(iso)) }

    @Test func sectorSaturdayIsOpenAllSaturdayOnly() throws {
        // 2026-03-07 is a Saturday of ISO week 10.
        let event = try #require(XPEvents.active(at: try Self.at("2026-03-07T23:59:59.999Z")))
        let sectors = SectorAliases.canonicalSectors
        #expect(event.sector == sectors[(10 - 1) % sectors.count])
        #expect(event.key == "sector-saturday:2026-03-07")
        #expect(event.title == "Sector Saturday — \(sectors[9])")
        #expect(event.multiplier == 2)
        #expect(event.startsAt == "2026-03-07T00:00:00.000Z" && event.endsAt == "2026-03-08T00:00:00.000Z")
        #expect(XPEvents.active(at: try Self.at("2026-03-07T00:00:00Z")) == event)
        #expect(XPEvents.active(at: try Self.at("2026-03-06T23:59:59.999Z")) == nil)
        #expect(XPEvents.active(at: try Self.at("2026-03-08T00:00:00Z")) == nil)
    }

    @Test func isoWeeksAcrossTheYearBoundary() throws {
        func week(_ iso: String) throws -> Int {
            XPEvents.isoWeek(epochDay: (try Self.at(iso).timeIntervalSince1970 / 86_400).rounded(.down))
        }
        // 2021-01-02 (a Saturday) still belongs to 2020's week 53; 2022-01-01 to 2021's week 52; 2026-01-03 to week 1.
        #expect(try week("2021-01-02T12:00:00Z") == 53)
        #expect(try week("2022-01-01T12:00:00Z") == 52)
        #expect(try week("2026-01-03T12:00:00Z") == 1)
        #expect(try week("2026-12-31T12:00:00Z") == 53)
        let rolledOver = try #require(XPEvents.active(at: try Self.at("2021-01-02T08:00:00Z")))
        #expect(rolledOver.sector == SectorAliases.canonicalSectors[(53 - 1) % 11])
    }

    @Test func onlyTheFeaturedSectorIsMultiplied() throws {
        let event = try #require(XPEvents.active(at: try Self.at("2026-03-07T10:00:00Z")))
        #expect(XPEvents.multiplier(sector: event.sector, event: event) == 2)
        #expect(XPEvents.multiplier(sector: "Not A Sector", event: event) == 1)
        #expect(XPEvents.multiplier(sector: nil, event: event) == 1)
        #expect(XPEvents.multiplier(sector: event.sector, event: nil) == 1)
        let everyone = ActiveEvent(key: "k", title: "t", sector: nil, multiplier: 3, startsAt: "", endsAt: "")
        #expect(XPEvents.multiplier(sector: nil, event: everyone) == 3)
    }
}

/// The leaderboard's ranking rule.
struct LeaderboardRulesTests {
    @Test func scoreThenUserIdAndTheCallerAlwaysRanked() {
        let scores = ["b": 30, "a": 30, "c": 45, "d": 15]
        let (top, own) = LeaderboardRules.rank(scores: scores, caller: "d", limit: 2)
        #expect(top == [ScoredUser(userId: "c", score: 45, rank: 1), ScoredUser(userId: "a", score: 30, rank: 2)])
        #expect(own == ScoredUser(userId: "d", score: 15, rank: 4))
        let (_, unscored) = LeaderboardRules.rank(scores: scores, caller: "z", limit: 50)
        #expect(unscored == ScoredUser(userId: "z", score: 0, rank: 5))
        #expect(LeaderboardRules.rank(scores: scores, caller: "z", limit: 500).top.count == 4)
        #expect(LeaderboardRules.rank(scores: [:], caller: "z", limit: 50).caller.rank == 1)
    }
}
