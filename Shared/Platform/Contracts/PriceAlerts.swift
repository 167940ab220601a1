import Foundation

/// What a price alert watches (docs/COMPATIBILITY.md#alerts): the price at or above / at or below `threshold`, or an
/// intraday move of at least `|threshold|` percent either way.
public enum PriceAlertKind: String, Codable, Sendable, CaseIterable {
    case priceAbove = "price_above"
    case priceBelow = "price_below"
    case pctMove = "pct_move"
}

/// One user's price alert as the routes show it: `{id, ticker, kind, threshold, note?, createdAt, triggeredAt?,
/// disabled}`; absent fields are omitted. An alert fires once: `triggeredAt` set means it is no longer active.
public struct PriceAlert: Codable, Sendable, Equatable {
    public var id: String
    public var ticker: String
    public var kind: PriceAlertKind
    public var threshold: Double
    public var note: String?
    public var createdAt: String
    public var triggeredAt: String?
    public var disabled: Bool

    public init(
        id: String, ticker: String, kind: PriceAlertKind, threshold: Double, note: String?, createdAt: String,
        triggeredAt: String?, disabled: Bool
    ) {
        self.id = id
        self.ticker = ticker
        self.kind = kind
        self.threshold = threshold
        self.note = note
        self.createdAt = createdAt
        self.triggeredAt = triggeredAt
        self.disabled = disabled
    }

    /// Whether a quote satisfies the alert; a missing or non-finite number never does.
    public func isTriggered(price: Double?, changePct: Double?) -> Bool {
        guard threshold.isFinite else { return false }
        switch kind {
        case .priceAbove: return price.map { $0.isFinite && $0 >= threshold } ?? false
        case .priceBelow: return price.map { $0.isFinite && $0 <= threshold } ?? false
        case .pctMove: return changePct.map { $0.isFinite && abs($0) >= abs(threshold) } ?? false
        }
    }
}

/// Command names of the `/v1/alerts` routes on `mapvest.briefs.commands.v1`, keyed by the user id.
public enum PriceAlertCommandName {
    public static let create = "alerts.create.v1"
    public static let list = "alerts.list.v1"
    public static let check = "alerts.check.v1"
    public static let delete = "alerts.delete.v1"
}

/// `POST /v1/alerts`, validated: ticker `^[A-Z][A-Z0-9.-]{0,9}$`, a finite threshold, a note of at most 240.
public struct CreatePriceAlertCommand: Codable, Sendable, Equatable {
    public var userId: String
    public var ticker: String
    public var kind: PriceAlertKind
    public var threshold: Double
    public var note: String?
    public init(userId: String, ticker: String, kind: PriceAlertKind, threshold: Double, note: String?) {
        self.userId = userId
        self.ticker = ticker
        self.kind = kind
        self.threshold = threshold
        self.note = note
    }
}

/// `GET /v1/alerts`, `GET /v1/alerts/check` (no `alertId`) and `DELETE /v1/alerts/:id`.
public struct PriceAlertUserCommand: Codable, Sendable, Equatable {
    public var userId: String
    public var alertId: String?
    public init(userId: String, alertId: String? = nil) {
        self.userId = userId
        self.alertId = alertId
    }
}

public struct PriceAlertResponse: Codable, Sendable, Equatable {
    public var alert: PriceAlert
    public init(alert: PriceAlert) { self.alert = alert }
}

public struct PriceAlertsResponse: Codable, Sendable, Equatable {
    public var alerts: [PriceAlert]
    public init(alerts: [PriceAlert]) { self.alerts = alerts }
}

/// `GET /v1/alerts/check`: only the alerts that fired on this call.
public struct PriceAlertCheckResponse: Codable, Sendable, Equatable {
    public var triggered: [PriceAlert]
    public init(triggered: [PriceAlert]) { self.triggered = triggered }
}

/// "Scan price alerts" (`briefs.price-alerts.scan.v1`), published at 08:00 and 16:00 scheduler-local by Briefs'
/// scheduler or an outside producer: without `userId` it expands into one command per user with active alerts;
/// with it, that user's active alerts are checked and the fired ones pushed (`price_alerts`,
/// docs/COMPATIBILITY.md#push-events).
public struct ScanPriceAlertsCommand: Codable, Sendable, Equatable {
    public static let name = "briefs.price-alerts.scan.v1"
    public var userId: String?
    public init(userId: String? = nil) { self.userId = userId }
}
