import Charts
import Contracts
import Foundation
import Messaging

/// `widget.map-snapshot.v1`: the widget's snapshot drawn on the chart renderer's queues (never the cooperative pool).
public struct MapSnapshots: Sendable {
    let renderer: ChartRenderer

    public init(renderer: ChartRenderer) { self.renderer = renderer }

    /// `{png}` (base64); `503 snapshot renderer busy` past the renderer's queue, `502 snapshot could not be drawn`.
    public func snapshot(_ command: MapSnapshotCommand) async -> Reply {
        let request = MapSnapshotRequest(
            origin: LatLng(lat: command.lat, lng: command.lng), radius: command.radius, pins: command.pins,
            width: min(640, max(1, command.width)), height: min(640, max(1, command.height)))
        do {
            let png = try await renderer.renderSnapshot(request)
            return .json(200, MapSnapshotReply(png: Data(png).base64EncodedString()))
        } catch {
            return error.kind == .busy
                ? .error(503, "snapshot renderer busy") : .error(502, "snapshot could not be drawn")
        }
    }
}
