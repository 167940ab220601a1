import Contracts
import FoundationEssentials
import Runtime

/// Builds the per-recipient Expo message (docs/COMPATIBILITY.md#expo): the notifier's legacy top-level `data` fields
/// plus the `data.mapvest` envelope `{schemaVersion, deliveryId, installationId, issuedAt, expiresAt, eventKind,
/// target}`.
public enum PushEnvelope {
    package static let defaultTTL = 86_400
    package static let ttlRange = 300...604_800

    /// `ttl` seconds: default 86 400, clamped 300…604 800.
    public static func ttl(_ seconds: Int?) -> Int {
        min(ttlRange.upperBound, max(ttlRange.lowerBound, seconds ?? defaultTTL))
    }

    /// Explicit eventKind, else `data.kind`, else the event key, else `mapvest_update`; at most 64 characters.
    public static func eventKind(_ request: PushRequest) -> String {
        var kind = request.eventKind
        if kind?.isEmpty ?? true, case .string(let dataKind)? = request.data["kind"] { kind = dataKind }
        if kind?.isEmpty ?? true { kind = request.eventKey?.rawValue }
        let resolved = (kind?.isEmpty ?? true) ? "mapvest_update" : (kind ?? "mapvest_update")
        return String(resolved.prefix(64))
    }

    /// `mapvest-map-v1`, `mapvest-company-v1`, else `mapvest-settings-v1`.
    public static func categoryId(_ targetType: String) -> String {
        switch targetType {
        case "map": "mapvest-map-v1"
        case "company": "mapvest-company-v1"
        default: "mapvest-settings-v1"
        }
    }

    /// The bounded typed destination (`PushNotificationTarget`): known types with their known fields only. Over-long
    /// labels are cut; an invalid destination becomes `{type: "home"}` rather than an unbounded one.
    public static func target(_ target: PushTarget) -> [String: JSONValue] {
        let f = target.fields
        func text(_ key: String, max: Int) -> String? {
            guard case .string(let s)? = f[key], !s.isEmpty, s.count <= max else { return nil }
            return s
        }
        func cut(_ key: String, max: Int) -> String? {
            guard case .string(let s)? = f[key], !s.isEmpty else { return nil }
            return String(s.prefix(max))
        }
        func number(_ key: String, range: ClosedRange<Double>) -> Double? {
            guard case .number(let n)? = f[key], n.isFinite, range.contains(n) else { return nil }
            return n
        }
        let home: [String: JSONValue] = ["type": .string("home")]
        var out: [String: JSONValue] = ["type": .string(target.type)]
        switch target.type {
        case "home":
            if let section = text("section", max: 32), ["daily-brief", "local-brief"].contains(section) {
                out["section"] = .string(section)
            }
        case "map":
            if let placeId = text("placeId", max: 256) { out["placeId"] = .string(placeId) }
            if let ticker = text("ticker", max: 24) { out["ticker"] = .string(ticker) }
            if let lat = number("lat", range: -90...90), let lng = number("lng", range: -180...180) {
                out["lat"] = .number(lat)
                out["lng"] = .number(lng)
            }
            if let label = cut("label", max: 160) { out["label"] = .string(label) }
            if let reason = cut("reason", max: 240) { out["reason"] = .string(reason) }
            guard out["placeId"] != nil || out["ticker"] != nil || out["lat"] != nil else { return home }
        case "company":
            guard let ticker = text("ticker", max: 24) else { return home }
            out["ticker"] = .string(ticker)
        case "research":
            if let thread = text("threadId", max: 256) { out["threadId"] = .string(thread) }
        case "alerts", "camera", "universe", "settings":
            break
        case "quests":
            if let section = text("section", max: 32), section == "weekly-recap" { out["section"] = .string(section) }
        default:
            return home
        }
        return out
    }

    /// One recipient's message. `installationId` is the registration id, `deliveryId` the delivery group.
    public static func message(
        request: PushRequest, to expoToken: String, installationId: String, deliveryId: String, issuedAt: Date
    ) -> ExpoMessage {
        let ttl = ttl(request.ttlSeconds)
        let target = target(request.target)
        var data = request.data
        data["mapvest"] = .object([
            "schemaVersion": .number(1),
            "deliveryId": .string(deliveryId),
            "installationId": .string(installationId),
            "issuedAt": .string(Timestamp.iso8601(issuedAt)),
            "expiresAt": .string(Timestamp.iso8601(issuedAt.addingTimeInterval(TimeInterval(ttl)))),
            "eventKind": .string(eventKind(request)),
            "target": .object(target),
        ])
        let type: String
        if case .string(let t)? = target["type"] { type = t } else { type = "home" }
        return ExpoMessage(
            to: expoToken, title: request.title, body: request.body, data: data, categoryId: categoryId(type), ttl: ttl)
    }
}
