import BriefsCore
import Contracts
import Foundation
import Testing

/// Pure parts of Briefs: markdown stripping, the sector summary, headline order and floor, the schedule settings,
/// and the push requests' wire strings.
@Suite struct BriefsUnitTests {
    @Test func markdownBoldIsStripped() {
        #expect(DailyBriefRules.strip("  **Tape drifts higher**  ") == "Tape drifts higher")
        #expect(DailyBriefRules.strip("__Quiet day__") == "Quiet day")
        #expect(DailyBriefRules.strip("**$AAPL** rose; __$MSFT__ fell") == "$AAPL rose; $MSFT fell")
        #expect(DailyBriefRules.strip("****").isEmpty)
    }

    @Test func summaryGroupsMissingSectorsAsUncategorized() {
        let entries = ["Tech", nil, "  ", "Tech"].enumerated().map { i, sector in
            WatchEntry(ticker: "T\(i)", sector: sector, source: .manual, createdAt: "2026-01-01T00:00:00.000Z")
        }
        let summary = WatchlistRules.summary(entries, updatedAt: "now")
        #expect(
            summary.sectors == [
                .init(sector: "Tech", count: 2, pct: 0.5), .init(sector: "Uncategorized", count: 2, pct: 0.5),
            ])
        #expect(summary.tickerCount == 4 && summary.backtestReady)
        #expect(
            WatchlistRules.summary([], updatedAt: "now")
                == WatchListSummary(sectors: [], backtestReady: false, tickerCount: 0, updatedAt: "now"))
    }

    @Test func headlinesNewestFirstAndTheFloorKeepsUnscored() {
        func item(_ t: String, _ at: String, _ level: MaterialityLevel?) -> WatchHeadline {
            WatchHeadline(
                title: t, url: "https://x/\(t)", source: "s", publishedAt: at, ticker: "X",
                jevMateriality: level.map { JevMateriality(level: $0, score: $0.position, confidence: 0.9) })
        }
        let items = [
            item("old", "2026-01-01T00:00:00.000Z", .noise), item("bad-date", "yesterday", nil),
            item("new", "2026-01-03T00:00:00.000Z", .material), item("mid", "2026-01-02T00:00:00.000Z", nil),
        ]
        #expect(WatchlistRules.newestFirst(items).map(\.title) == ["new", "mid", "old", "bad-date"])
        #expect(WatchlistRules.filter(items, floor: .minor).map(\.title) == ["bad-date", "new", "mid"])
        #expect(WatchlistRules.filter(items, floor: nil).count == 4)
    }

    @Test func scheduleSettingsAndPushWireStrings() {
        #expect(BriefsJobs.jobs(dailyAt: "06:30").first?.cadence == .daily(hour: 6, minute: 30))
        #expect(BriefsJobs.jobs(dailyAt: "25:99").first?.cadence == .daily(hour: 7, minute: 0))
        let jobs = BriefsJobs.jobs(dailyAt: "07:00")
        #expect(jobs.first { $0.job == "briefs.movers" }?.cadence == .minutes(every: 5, offset: 0))
        #expect(jobs.first { $0.job == "briefs.movement" }?.cadence == .minutes(every: 60, offset: 0))
        #expect(jobs.first { $0.job == "briefs.find_evolution" }?.cadence == .minutes(every: 15, offset: 7))

        let brief = DailyBrief(
            headline: String(repeating: "h", count: 300), body: "b", generatedAt: "2026-12-01T07:00:00.000Z")
        let daily = DailyBriefRules.pushRequest(userId: "u1", brief: brief, day: "20261201")
        #expect(daily.title == "Your morning read" && daily.body.count == 240 && daily.eventKey == .dailyBrief)
        #expect(daily.dedupe == [PushDedupe(slot: "daily_brief", key: "20261201")])

        let quote = Quote(
            symbol: "NVDA", price: 100, change: -6.2, changePct: -6.25, currency: "USD", ts: "t", disclaimer: "d")
        let mover = WatchlistRules.moverPush(userId: "u1", quote: quote, ticker: "NVDA", day: "20261201")
        #expect(mover.title == "$NVDA -6.2%" || mover.title == "$NVDA -6.3%")
        #expect(mover.body.hasPrefix("$NVDA is down 6.") && mover.body.hasSuffix("% today — it's on your watchlist."))
        #expect(mover.dedupe == [PushDedupe(slot: "watchlist_mover", key: "20261201-NVDA")])
    }
}
