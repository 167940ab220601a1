import Contracts
import Foundation
import HTTPServer

/// `GET /v1/nearby` (CONTRACT.md §b.1): optional auth (a session only adds per-user `state`); answered by Nearby.
struct NearbyRoute: Sendable {
    let caller: ServiceCaller
    let budget: Duration

    var route: Route {
        Route("GET", "/v1/nearby", auth: .optional) { context in
            guard let command = Self.command(context.request.head.query, userId: context.caller.session?.userId) else {
                return .error(400, "lat/lng required")
            }
            return await caller.call(
                .nearby, NearbyCommand.name, key: Self.partitionKey(command), command: command, budget: budget,
                requestId: context.requestId)
        }
    }

    /// `lat`/`lng` must be finite numbers in range; `radius` (metres, default 500, 1…50 000) and `limit` (default 25,
    /// 1…100) fall back to their defaults when they are not positive numbers, as the contract does not reject them;
    /// `zoom` is kept when it is a finite number.
    static func command(_ query: [String: String], userId: String?) -> NearbyCommand? {
        guard let location = LatLng.validated(lat: number(query["lat"]), lng: number(query["lng"])) else { return nil }
        let radius = number(query["radius"]).flatMap { $0 > 0 ? min($0, 50_000) : nil } ?? 500
        let limit = number(query["limit"]).flatMap { $0 >= 1 ? Int(min($0, 100).rounded(.towardZero)) : nil } ?? 25
        return NearbyCommand(
            lat: location.lat, lng: location.lng, radius: max(1, radius), limit: limit, zoom: number(query["zoom"]),
            userId: userId)
    }

    /// A finite number, or nil (missing, empty, not a number, infinite).
    static func number(_ raw: String?) -> Double? {
        guard let text = raw?.trimmingCharacters(in: .whitespaces), !text.isEmpty, let value = Double(text),
            value.isFinite
        else { return nil }
        return value
    }

    /// Requests for one area land on one partition, so one replica's single-flight covers a busy tile.
    static func partitionKey(_ command: NearbyCommand) -> String {
        partitionKey(lat: command.lat, lng: command.lng)
    }

    /// The area key of a point (shared with the places proxy, whose tiles are nearby's).
    static func partitionKey(lat: Double, lng: Double) -> String {
        "\((lat * 100).rounded() / 100),\((lng * 100).rounded() / 100)"
    }
}
