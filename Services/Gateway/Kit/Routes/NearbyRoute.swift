import Contracts
import Foundation
import HTTPServer

/// `GET /v1/nearby` (docs/COMPATIBILITY.md#nearby): optional auth (a session only adds per-user `state`); answered by
/// Nearby.
struct NearbyRoute: Sendable {
    let caller: ServiceCaller
    let budget: Duration

    var route: Route {
        Route("GET", "/v1/nearby", auth: .optional) { context in
            let command: NearbyCommand
            do throws(HTTPResponse) {
                command = try NearbyInput.command(context.request.head.query, userId: context.caller.session?.userId)
            } catch {
                return error
            }
            return await caller.call(
                .nearby, NearbyCommand.name, key: Self.partitionKey(command), command: command, budget: budget,
                requestId: context.requestId)
        }
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
