import BriefsCore
import Contracts
import Foundation
import Testing

/// BriefsCore's rules that moved out of the binary's handlers: the UTC keys, Mapvest Daily's prompt, reuse and push
/// decisions, the scheduled jobs as values, and the watchlist movers.
@Suite struct CoreRulesUnitTests {
    static let tuesdayNoon = Date(timeIntervalSince1970: 1_796_126_400)  // 2026-12-01T12:00:00Z

    static func quote(_ price: Double, _ pct: Double) -> Quote {
        Quote(symbol: "X", price: price, change: 0, changePct: pct, currency: "USD", ts: "t", disclaimer: "d")
    }

    @Test func utcKeys() {
        #expect(BriefsCalendar.day(Self.tuesdayNoon) == "20261201" && BriefsCalendar.utcHour(Self.tuesdayNoon) == 12)
        #expect(BriefsCalendar.weekKey(Self.tuesdayNoon) == "20261130")
        #expect(BriefsCalendar.day(Date(timeIntervalSince1970: 0)) == "19700101")
    }

    @Test func quoteLinesNameTickersWithoutUsableQuotes() {
        let entry = WatchEntry(ticker: "AAPL", name: "Apple", source: .manual, createdAt: "2026-01-01T00:00:00.000Z")
        #expect(DailyBriefRules.quoteLine(entry, Self.quote(189.5, 1.234)) == "$AAPL (Apple) $189.50 +1.23%")
        #expect(DailyBriefRules.quoteLine(entry, Self.quote(10, -0.5)) == "$AAPL (Apple) $10.00 -0.50%")
        #expect(DailyBriefRules.quoteLine(entry, nil) == "$AAPL (Apple)")
        let bare = WatchEntry(ticker: "X", source: .manual, createdAt: "2026-01-01T00:00:00.000Z")
        #expect(DailyBriefRules.quoteLine(bare, Self.quote(.nan, 1)) == "$X")
    }

    @Test func headlinesAreRoundRobinTwoPerTickerEightInAll() {
        let rows = DailyBriefRules.roundRobin(["A", "B", "C"], [["a1", "a2", "a3"], ["b1"], ["c1", "c2"]])
        #expect(rows.map { "\($0.ticker):\($0.item)" } == ["A:a1", "B:b1", "C:c1", "A:a2", "C:c2"])
        let five = (1...5).map { "T\($0)" }
        let capped = DailyBriefRules.roundRobin(five, five.map { [$0 + "a", $0 + "b"] })
        #expect(capped.count == 8 && capped.prefix(5).map(\.item) == five.map { $0 + "a" })
        #expect(DailyBriefRules.headlineLine(ticker: "A", title: "Up", source: "Wire") == "- $A: Up [Wire]")
    }

    @Test func promptAndAcceptance() {
        #expect(
            DailyBriefRules.userPrompt(quotes: "$A", headlines: "")
                == "Watchlist snapshot (delayed quotes):\n$A\n\nWrite today's briefing.")
        #expect(DailyBriefRules.userPrompt(quotes: "$A", headlines: "- h").contains("Recent headlines:\n- h\n\n"))
        #expect(DailyBriefRules.acceptable(headline: "**Up**", body: "b"))
        #expect(!DailyBriefRules.acceptable(headline: "****", body: "b"))
        #expect(DailyBriefRules.empty(Self.tuesdayNoon).headline == DailyBriefRules.emptyHeadline)
        let outage = DailyBriefRules.outage(Self.tuesdayNoon)
        #expect(outage.body == DailyBriefRules.outageBody && outage.generatedAt == "2026-12-01T12:00:00.000Z")
    }

    @Test func reuseNeedsHeadlinesAWrittenPreviousAndAConfidentNo() {
        let brief = DailyBrief(headline: "h", body: "b", generatedAt: "2026-11-30T07:00:00.000Z")
        let generated = WrittenDailyBrief(brief: brief, kind: .generated, headlines: "old", headlineCount: 1)
        let outage = WrittenDailyBrief(brief: brief, kind: .outage, headlines: "old", headlineCount: 1)
        #expect(DailyBriefRules.mayReuse(block: "new", previous: generated))
        #expect(!DailyBriefRules.mayReuse(block: "", previous: generated))
        #expect(!DailyBriefRules.mayReuse(block: "new", previous: nil))
        #expect(!DailyBriefRules.mayReuse(block: "new", previous: outage))
        #expect(DailyBriefRules.nothingNew(probability: 0.25) && !DailyBriefRules.nothingNew(probability: 0.26))
        #expect(!DailyBriefRules.nothingNew(probability: .nan))
        let reused = generated.reused(headlines: "new", count: 3, now: Self.tuesdayNoon)
        #expect(reused.kind == .reused && reused.headlines == "new" && reused.headlineCount == 3)
        #expect(reused.brief.generatedAt == "2026-12-01T12:00:00.000Z" && reused.brief.headline == "h")
    }

    @Test func onlyTheDefaultListsGeneratedBriefPushes() {
        #expect(DailyBriefRules.pushes(isDefault: true, kind: .generated, fresh: true, scheduled: false))
        #expect(DailyBriefRules.pushes(isDefault: true, kind: .generated, fresh: false, scheduled: true))
        #expect(!DailyBriefRules.pushes(isDefault: true, kind: .generated, fresh: false, scheduled: false))
        #expect(!DailyBriefRules.pushes(isDefault: false, kind: .generated, fresh: true, scheduled: true))
        #expect(!DailyBriefRules.pushes(isDefault: true, kind: .reused, fresh: true, scheduled: true))
        #expect(!DailyBriefRules.pushes(isDefault: true, kind: .outage, fresh: true, scheduled: true))
        let entries = ["msft", "AAPL"].map { WatchEntry(ticker: $0, source: .manual, createdAt: "t") }
        #expect(DailyBriefRules.tickerKey(entries) == "AAPL,MSFT")
        let brief = DailyBrief(headline: "h", body: "b", generatedAt: "2026-12-01T07:00:00.000Z")
        #expect(DailyBriefRules.pushDay(brief) == "20261201")
    }

    @Test func jobsAreValuesWithTheirCommandsAndBodies() throws {
        #expect(BriefsJobs.dailyTime("06:30") == (6, 30) && BriefsJobs.dailyTime("23:59") == (23, 59))
        #expect(BriefsJobs.dailyTime("24:00") == (7, 0) && BriefsJobs.dailyTime("7") == (7, 0))
        #expect(BriefsJobs.dailyTime("a:b") == (7, 0) && BriefsJobs.dailyTime("06:60") == (7, 0))
        let jobs = BriefsJobs.jobs(dailyAt: "07:00")
        #expect(jobs.map(\.job) == ["briefs.daily", "briefs.movers", "briefs.movement", "briefs.find_evolution"])
        #expect(
            jobs.map(\.command) == [
                GenerateDailyBriefsCommand.name, ScanWatchlistMoversCommand.name, ScanMovementCommand.name,
                ScanFindEvolutionCommand.name,
            ])
        #expect(try JSONDecoder().decode(GenerateDailyBriefsCommand.self, from: Data(jobs[0].body)).userId == nil)
        #expect(try JSONDecoder().decode(ScanMovementCommand.self, from: Data(jobs[2].body)).tokenId == nil)
    }

    @Test func moversMoveAtLeastFivePercent() {
        #expect(WatchlistRules.isMover(Self.quote(1, 5)) && WatchlistRules.isMover(Self.quote(1, -5)))
        #expect(!WatchlistRules.isMover(Self.quote(1, 4.99)) && !WatchlistRules.isMover(Self.quote(1, .nan)))
        #expect(
            WatchlistRules.emptySummary(updatedAt: "now")
                == WatchListSummary(sectors: [], backtestReady: false, tickerCount: 0, updatedAt: "now"))
        let up = WatchlistRules.moverPush(userId: "u1", quote: Self.quote(1, 7.25), ticker: "AMD", day: "20261201")
        #expect(up.title == "$AMD +7.2%" || up.title == "$AMD +7.3%")
        #expect(up.id == "watchlist_mover-20261201-AMD-u1" && up.body.hasPrefix("$AMD is up 7."))
    }
}
