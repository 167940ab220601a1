import Contracts
import Foundation
import Kafka
import Messaging
import Runtime
import ServiceKit

/// Hands each location heartbeat to Briefs' movement scheduler as a `briefs.device.fix.v1` command keyed by the
/// token id (docs/COMPATIBILITY.md#movement): the fix and the device's opt-ins, never the push token itself. Throws
/// until the broker acknowledged it, so the prefs command's after-reply retry keeps it.
struct DeviceFixes: Sendable {
    let context: ServiceContext

    @Sendable func publish(tokenId: String, userId: String, prefs: [String: JSONValue]) async throws {
        guard let command = Self.command(tokenId: tokenId, userId: userId, prefs: prefs, now: Date()) else { return }
        try await context.publisher.deliver(
            topic: ServiceName.briefs.commandTopic, key: tokenId, value: Array(try JSONEncoder().encode(command)),
            headers: [KafkaHeader(MessageHeaders.command, DeviceFixCommand.name)],
            until: ContinuousClock.now + .seconds(5))
    }

    /// Nil without finite coordinates in range.
    static func command(tokenId: String, userId: String, prefs: [String: JSONValue], now: Date) -> DeviceFixCommand? {
        func number(_ key: String) -> Double? { if case .number(let n)? = prefs[key] { n } else { nil } }
        func flag(_ key: String) -> Bool { if case .bool(true)? = prefs[key] { true } else { false } }
        guard let lat = number("last_lat"), let lng = number("last_lng"), lat.isFinite, lng.isFinite, abs(lat) <= 90,
            abs(lng) <= 180
        else { return nil }
        var at = Timestamp.iso8601(now)
        if case .string(let given)? = prefs["last_location_at"], Timestamp.parse(given) != nil { at = given }
        return DeviceFixCommand(
            tokenId: tokenId, userId: userId, lat: lat, lng: lng, locatedAt: at,
            notificationsEnabled: flag("notifications_enabled"), localBrief: flag(PushEventKey.localBrief.rawValue),
            uncaughtNearby: flag(PushEventKey.uncaughtNearby.rawValue))
    }
}
