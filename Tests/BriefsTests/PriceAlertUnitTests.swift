import BriefsCore
import Contracts
import Foundation
import Scheduling
import Testing

/// Price alerts' pure parts: when an alert fires, the `price_alerts` push's wire strings, and the two daily slots.
@Suite struct PriceAlertUnitTests {
    static func alert(_ id: String, _ ticker: String, _ kind: PriceAlertKind, _ threshold: Double) -> PriceAlert {
        PriceAlert(
            id: id, ticker: ticker, kind: kind, threshold: threshold, note: nil, createdAt: "2026-12-01T00:00:00.000Z",
            triggeredAt: nil, disabled: false)
    }

    @Test func firesOnlyOnRealNumbersPastTheThreshold() {
        #expect(Self.alert("a", "X", .priceAbove, 100).isTriggered(price: 100, changePct: 0))
        #expect(!Self.alert("a", "X", .priceAbove, 100).isTriggered(price: 99.99, changePct: 0))
        #expect(Self.alert("a", "X", .priceBelow, 100).isTriggered(price: 100, changePct: 0))
        #expect(!Self.alert("a", "X", .priceBelow, 100).isTriggered(price: .nan, changePct: 0))
        #expect(Self.alert("a", "X", .pctMove, -5).isTriggered(price: 1, changePct: 5.2))
        #expect(Self.alert("a", "X", .pctMove, 5).isTriggered(price: 1, changePct: -5))
        #expect(!Self.alert("a", "X", .pctMove, 5).isTriggered(price: 1, changePct: 4.99))
        #expect(!Self.alert("a", "X", .pctMove, 5).isTriggered(price: 1, changePct: nil))
    }

    @Test func onePushNamesTheAlertAndManyNameUpToThreeTickers() {
        let one = PriceAlertRules.push(
            userId: "u", alerts: [Self.alert("alt_1", "AAPL", .priceAbove, 190.5)], day: "20261201", id: "pa-1")
        #expect(one.title == "Price alert: $AAPL" && one.body == "$AAPL crossed above $190.50")
        #expect(one.id == "pa-1" && one.userIds == ["u"] && one.eventKind == "price_alert")
        #expect(one.eventKey == .priceAlerts && one.target == PushTarget(type: "alerts"))
        #expect(one.data == ["kind": .string("price_alert"), "tickers": .array([.string("AAPL")])])
        #expect(one.dedupe == [PushDedupe(slot: "price_alerts", key: "price_alerts-20261201-alt_1")])
        #expect(PriceAlertRules.describe(Self.alert("b", "T", .priceBelow, 9)) == "$T fell below $9.00")
        #expect(PriceAlertRules.describe(Self.alert("c", "T", .pctMove, -4)) == "$T moved by 4.0% or more")

        let five = (1...5).map { Self.alert("alt_\($0)", "T\($0)", .pctMove, 1) }
        let many = PriceAlertRules.push(userId: "u", alerts: five, day: "20261201", id: "pa-5")
        #expect(many.title == "Price alerts: 5 tickers moved" && many.body == "$T1, $T2, $T3 +2 more")
        #expect(many.dedupe.map(\.key) == (1...5).map { "price_alerts-20261201-alt_\($0)" })
        let three = PriceAlertRules.push(userId: "u", alerts: Array(five.prefix(3)), day: "20261201", id: "pa-3")
        #expect(three.body == "$T1, $T2, $T3")
    }

    @Test func scansAreDueAtEightAndFourLocal() throws {
        let jobs = BriefsJobs.priceAlertJobs
        #expect(jobs.map(\.command) == [ScanPriceAlertsCommand.name, ScanPriceAlertsCommand.name])
        #expect(jobs.map(\.job) == ["briefs.price_alerts.8", "briefs.price_alerts.16"])
        #expect(jobs.map(\.cadence) == [.daily(hour: 8, minute: 0), .daily(hour: 16, minute: 0)])
        let zone = try #require(TimeZone(identifier: "America/New_York"))
        // 16:05 in New York on 1 Dec 2026 is 21:05 UTC.
        let now = Date(timeIntervalSince1970: 1_796_159_100)
        let schedule = Schedule.daily(hour: 16, minute: 0)
        #expect(CommandScheduler.slotKey(schedule.latestSlot(atOrBefore: now, in: zone)) == "2026-12-01T21:00Z")
        #expect(try JSONDecoder().decode(ScanPriceAlertsCommand.self, from: Data(jobs[0].body)).userId == nil)
    }
}

/// The `memo_finished` push's wire strings (docs/COMPATIBILITY.md#push-events).
@Suite struct MemoUnitTests {
    @Test func memoFinishedNamesTheTickerAndDedupesPerDay() {
        let push = MemoRules.push(userId: "usr_1", ticker: "AAPL", day: "20261201")
        #expect(push.title == "Your $AAPL brief is ready" && push.eventKey == .memoFinished)
        #expect(push.target == PushTarget(type: "company", fields: ["ticker": .string("AAPL")]))
        #expect(push.data["kind"] == .string("memo_finished"))
        #expect(push.dedupe == [PushDedupe(slot: "memo_finished", key: "20261201-AAPL")])
    }
}
