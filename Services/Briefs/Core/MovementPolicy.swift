import Contracts
import Foundation
import Geo
import Runtime

/// The movement scheduler's rules (docs/COMPATIBILITY.md#movement), per device: a fix is valid or refused, fresh for 6
/// h, and a branch's device moved when it has no anchor of that branch or is ≥ 2,000 m from it; the local-brief
/// branch's push.
public enum MovementPolicy {
    public static let threshold = 2_000.0
    public static let freshness: TimeInterval = 6 * 3600

    /// The fix's time to store, or nil when the fix is not valid (coordinates, time, ids). A fix from the future
    /// (a wrong device clock) counts as now, so it can neither stay fresh nor block newer ones.
    public static func acceptedFix(_ command: DeviceFixCommand, now: Date) -> String? {
        guard command.lat.isFinite, command.lng.isFinite, abs(command.lat) <= 90, abs(command.lng) <= 180,
            let at = Timestamp.parse(command.locatedAt), !command.tokenId.isEmpty, !command.userId.isEmpty
        else { return nil }
        return Timestamp.iso8601(min(at, now))
    }

    /// Moved: no anchor yet, or at least `threshold` metres from it.
    public static func moved(anchorLat: Double?, anchorLng: Double?, lat: Double, lng: Double) -> Bool {
        guard let anchorLat, let anchorLng else { return true }
        return !(haversineMetres(lat1: anchorLat, lng1: anchorLng, lat2: lat, lng2: lng) < threshold)
    }

    /// `local_brief` (docs/COMPATIBILITY.md#push-events): "Local economy — <place>", the first paragraph (≤ 220), to
    /// that token only, once per device per UTC day at the dispatcher.
    public static func localBriefPush(
        userId: String, tokenId: String, lat: Double, lng: Double, brief: LocalBrief, now: Date
    ) -> PushRequest {
        let day = BriefsCalendar.day(now)
        let place = brief.place.label ?? "your area"
        let first = brief.paragraphs.first.map { String($0.prefix(220)) }
        return PushRequest(
            id: "local_brief-\(day)-\(tokenId)", userIds: [userId], tokenId: tokenId, eventKey: .localBrief,
            eventKind: "local_brief", title: "Local economy — \(place)",
            body: first ?? "What's investable in \(place) right now.",
            data: ["kind": .string("local_brief"), "lat": .number(lat), "lng": .number(lng)],
            target: PushTarget(type: "home", fields: ["section": .string("local-brief")]),
            dedupe: [PushDedupe(slot: "local_brief:\(tokenId)", key: day)])
    }
}
