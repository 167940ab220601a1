import Contracts
import Foundation
import Runtime

/// The weekly close of a rivalry round, free of I/O: the week's change of each side from daily closes, the outcome
/// from the user's side, whether a pick was right, and the push that reports it. It reports what two companies did
/// and the record; it never suggests an action.
public enum RivalryClose {
    /// XP for a correct pick (a draw makes no pick correct).
    public static let pickXP = 30
    /// Below this gap in percentage points the week is a draw.
    public static let drawThresholdPp = 0.15
    /// Trading sessions in one round.
    public static let sessions = 5
    /// The most rounds one close run takes (oldest rivalries first).
    public static let maxPerRun = 5000

    public enum Outcome: String, Sendable, Equatable {
        case win, loss, draw
    }

    /// The change in percent from the close `sessions` sessions before the last to the last; nil when the series
    /// is too short or its basis is not a positive number (never a zero stand-in).
    public static func weeklyChangePct(closes: [Double]) -> Double? {
        let finite = closes.filter(\.isFinite)
        guard finite.count >= 2, let last = finite.last else { return nil }
        let basis = finite[max(0, finite.count - 1 - sessions)]
        guard basis > 0 else { return nil }
        return (last - basis) / basis * 100
    }

    /// The outcome from the user's ticker side and the signed gap (ticker minus rival) in percentage points.
    public static func outcome(tickerPct: Double, rivalPct: Double) -> (outcome: Outcome, diffPp: Double)? {
        guard tickerPct.isFinite, rivalPct.isFinite else { return nil }
        let diff = tickerPct - rivalPct
        if abs(diff) < drawThresholdPp { return (.draw, diff) }
        return (diff > 0 ? .win : .loss, diff)
    }

    /// A pick backing the side that won; a draw settles nothing.
    public static func pickWasRight(_ pick: RivalryPick?, _ outcome: Outcome) -> Bool {
        switch (pick, outcome) {
        case (.ticker, .win), (.rival, .loss): true
        default: false
        }
    }

    /// The instant of a scheduled slot from its `mv-slot` header (`<job>@YYYY-MM-DDTHH:MMZ`); nil when absent or
    /// unreadable.
    public static func slotInstant(_ header: String?) -> Date? {
        guard let key = header?.split(separator: "@").last, key.hasSuffix("Z") else { return nil }
        return Timestamp.parse(key.dropLast() + ":00Z")
    }

    /// The ledger key of a round's pick XP: once per rivalry and closed week.
    public static func awardKey(rivalryId: String, weekStart: String) -> String { "rivalry:\(rivalryId):\(weekStart)" }

    /// The close's notification to the user's devices that are not muted (no preference key: creating the rivalry
    /// is the opt-in), at most once per rivalry and closed week (`rivalry:<id>` keyed by the week).
    public static func push(
        userId: String, closed: Rivalry, outcome: Outcome, diffPp: Double, weekStart: String
    ) -> PushRequest {
        let (ticker, rival) = (closed.ticker, closed.rivalTicker)
        let gap = String(format: "%.1f", abs(diffPp))
        let record = "record \(closed.wins)-\(closed.losses)\(closed.draws > 0 ? "-\(closed.draws)" : "")"
        let body: String
        switch outcome {
        case .win: body = "Your \(ticker) beat \(rival) by \(gap)pp this week — \(record)."
        case .loss: body = "\(rival) beat your \(ticker) by \(gap)pp this week — \(record)."
        case .draw: body = "Your \(ticker) and \(rival) finished level this week — \(record)."
        }
        return PushRequest(
            id: awardKey(rivalryId: closed.id, weekStart: weekStart), userIds: [userId], eventKey: nil,
            eventKind: "rivalry_weekly_close", title: "$\(ticker) vs $\(rival)", body: body,
            data: [
                "kind": .string("rivalry_weekly_close"), "rivalryId": .string(closed.id), "ticker": .string(ticker),
                "rivalTicker": .string(rival), "outcome": .string(outcome.rawValue), "diffPp": .number(diffPp),
                "weekStart": .string(weekStart),
            ],
            target: PushTarget(type: "company", fields: ["ticker": .string(ticker)]),
            dedupe: [PushDedupe(slot: "rivalry:\(closed.id)", key: weekStart)])
    }
}
