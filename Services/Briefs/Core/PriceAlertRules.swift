import Contracts
import Foundation

/// Price alerts' pure parts (docs/COMPATIBILITY.md#alerts, #push-events): which active alerts a set of quotes fires,
/// the scan's once-per-window slot, and the `price_alerts` push's wire strings.
public enum PriceAlertRules {
    /// The active alerts whose ticker has a quote that satisfies them; a missing quote never fires.
    public static func firing(_ active: [PriceAlert], quotes: [String: Quote]) -> [PriceAlert] {
        active.filter { alert in
            guard let quote = quotes[alert.ticker] else { return false }
            return alert.isTriggered(price: quote.price, changePct: quote.changePct)
        }
    }

    /// One push per user per scan window: the 08:00 and 16:00 scans are 8 h apart, so they fall in different
    /// 8-hour UTC windows, and duplicate scans of one slot share it.
    public static func scanSlot(userId: String, day: String, utcHour: Int) -> String {
        "\(day):\(userId):w\(utcHour / 8)"
    }

    /// What the push's id digests: the user and the sorted alert ids.
    public static func pushIdSeed(userId: String, alerts: [PriceAlert]) -> String {
        "\(userId):\(alerts.map(\.id).sorted().joined(separator: ","))"
    }

    /// `price_alerts` (docs/COMPATIBILITY.md#push-events): `Price alert: $T` with the alert's description, or `Price
    /// alerts: N tickers moved` with up to three cashtags and `+k more`; one dedupe key
    /// `price_alerts-<YYYYMMDD>-<alertId>` per alert. `id` is the request's id (the binary digests `pushIdSeed`).
    public static func push(userId: String, alerts: [PriceAlert], day: String, id: String) -> PushRequest {
        let title: String
        let body: String
        if alerts.count == 1, let only = alerts.first {
            title = "Price alert: $\(only.ticker)"
            body = describe(only)
        } else {
            title = "Price alerts: \(alerts.count) tickers moved"
            body =
                alerts.prefix(3).map { "$\($0.ticker)" }.joined(separator: ", ")
                + (alerts.count > 3 ? " +\(alerts.count - 3) more" : "")
        }
        return PushRequest(
            id: id, userIds: [userId], eventKey: .priceAlerts, eventKind: "price_alert", title: title, body: body,
            data: ["kind": .string("price_alert"), "tickers": .array(alerts.map { .string($0.ticker) })],
            target: PushTarget(type: "alerts"),
            dedupe: alerts.map { PushDedupe(slot: "price_alerts", key: "price_alerts-\(day)-\($0.id)") })
    }

    public static func describe(_ alert: PriceAlert) -> String {
        switch alert.kind {
        case .priceAbove: return "$\(alert.ticker) crossed above $\(String(format: "%.2f", alert.threshold))"
        case .priceBelow: return "$\(alert.ticker) fell below $\(String(format: "%.2f", alert.threshold))"
        case .pctMove: return "$\(alert.ticker) moved by \(String(format: "%.1f", abs(alert.threshold)))% or more"
        }
    }
}
