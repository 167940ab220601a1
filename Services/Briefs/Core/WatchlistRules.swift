import Contracts
import Foundation
import Runtime

/// The watchlist's pure parts: the sector summary, the headline order and materiality floor
/// (docs/COMPATIBILITY.md#watchlist-headlines), the movers threshold and the `watchlist_mover` push.
public enum WatchlistRules {
    public static let headlinesPerTicker = 3
    public static let headlineTotal = 30
    public static let moverThreshold = 5.0

    /// Sector composition, largest first; a missing or blank sector counts as `Uncategorized`.
    public static func summary(_ entries: [WatchEntry], updatedAt: String) -> WatchListSummary {
        var counts: [String: Int] = [:]
        for entry in entries {
            let sector = entry.sector?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            counts[sector.isEmpty ? "Uncategorized" : sector, default: 0] += 1
        }
        let total = entries.count
        let sectors = counts.map {
            WatchListSummary.Sector(sector: $0.key, count: $0.value, pct: Double($0.value) / Double(total))
        }
        .sorted { $0.count != $1.count ? $0.count > $1.count : $0.sector < $1.sector }
        // Ready means `POST /v1/backtest` over this list has a symbol it accepts.
        let ready = !BacktestCommand.symbols(entries.map(\.ticker)).isEmpty
        return WatchListSummary(sectors: sectors, backtestReady: ready, tickerCount: total, updatedAt: updatedAt)
    }

    /// The summary of a list that could not be read.
    public static func emptySummary(updatedAt: String) -> WatchListSummary {
        WatchListSummary(sectors: [], backtestReady: false, tickerCount: 0, updatedAt: updatedAt)
    }

    /// By `publishedAt`, newest first; unparseable times last, in arrival order.
    public static func newestFirst(_ items: [WatchHeadline]) -> [WatchHeadline] {
        items.enumerated().sorted { a, b in
            switch (Timestamp.parse(a.element.publishedAt), Timestamp.parse(b.element.publishedAt)) {
            case (let x?, let y?): x != y ? x > y : a.offset < b.offset
            case (.some, nil): true
            case (nil, .some): false
            case (nil, nil): a.offset < b.offset
            }
        }.map(\.element)
    }

    /// Items at or above `floor`, plus every unscored one.
    public static func filter(_ items: [WatchHeadline], floor: MaterialityLevel?) -> [WatchHeadline] {
        guard let floor else { return items }
        return items.filter { ($0.jevMateriality?.level.rank ?? floor.rank) >= floor.rank }
    }

    /// A quote moved enough for a `watchlist_mover` push: |change| ≥ 5 %.
    public static func isMover(_ quote: Quote) -> Bool {
        quote.changePct.isFinite && abs(quote.changePct) >= moverThreshold
    }

    /// `watchlist_mover` (docs/COMPATIBILITY.md#push-events): `$T +x.x%`, "… is up x.x% today — it's on your
    /// watchlist.", once per ticker per day.
    public static func moverPush(userId: String, quote: Quote, ticker: String, day: String) -> PushRequest {
        let pct = String(format: "%.1f", abs(quote.changePct))
        let up = quote.changePct >= 0
        return PushRequest(
            id: "watchlist_mover-\(day)-\(ticker)-\(userId)", userIds: [userId], eventKey: .watchlistMover,
            eventKind: "watchlist_mover", title: "$\(ticker) \(up ? "+" : "-")\(pct)%",
            body: "$\(ticker) is \(up ? "up" : "down") \(pct)% today — it's on your watchlist.",
            data: ["kind": .string("watchlist_mover"), "ticker": .string(ticker)],
            target: PushTarget(type: "company", fields: ["ticker": .string(ticker)]),
            dedupe: [PushDedupe(slot: "watchlist_mover", key: "\(day)-\(ticker)")])
    }
}
