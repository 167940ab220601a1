import Charts
import Contracts
import Foundation
import Testing

/// The widgets' drawn snapshot: geometry (pure) and a real PNG from cairo.
@Suite("Map snapshot drawing")
struct MapSnapshotTests {
    /// The places `/v1/widget/nearby` answers for 40.72,-74 in the gateway's widget tests, as their pins.
    static let request = MapSnapshotRequest(
        origin: LatLng(lat: 40.72, lng: -74), radius: 1500,
        pins: [
            MapSnapshotPin(lat: 40.7201, lng: -74, label: "SBUX", investable: true),
            MapSnapshotPin(lat: 40.725, lng: -74, label: "Place plain", investable: false),
            MapSnapshotPin(lat: 40.73, lng: -74, label: "SBUX", investable: true),
        ], width: 480, height: 480)

    @Test func theRadiusFitsAndTheScaleBarIsRound() {
        let layout = MapSnapshotLayout(Self.request)
        let center = layout.point(Self.request.origin)
        #expect(center.x == 240 && center.y == 240)
        let far = layout.point(LatLng(lat: 40.73, lng: -74))
        #expect(abs(far.x - 240) < 0.001)
        #expect(far.y < 240 && far.y > 240 - 0.42 * 480 - 0.001)  // north is up, inside the frame
        #expect(layout.scaleMetres == 500)
        #expect(MapSnapshotLayout.distanceText(500) == "500 m")
        #expect(MapSnapshotLayout.distanceText(2000) == "2 km")
        #expect(MapSnapshotLayout.distanceText(1500) == "1.5 km")
    }

    @Test func aFarPinWidensTheFrame() {
        var request = Self.request
        request.pins.append(MapSnapshotPin(lat: 40.80, lng: -74, label: "FAR", investable: true))
        let layout = MapSnapshotLayout(request)
        let far = layout.point(LatLng(lat: 40.80, lng: -74))
        #expect(far.y >= 240 - 0.42 * 480 - 0.001)
    }

    @Test func itDrawsARealPNG() async throws {
        let png = try await ChartRenderer(workers: 1).renderSnapshot(Self.request)
        let info = try #require(PNGInfo.inspect(png))
        #expect(info.width == 960 && info.height == 960)
        #expect(info.luminanceVariance > 10)  // not a blank canvas
        let sample = FileManager.default.temporaryDirectory.appendingPathComponent("mapvest-widget-snapshot.png")
        try Data(png).write(to: sample)
        print("map snapshot sample written to \(sample.path)")
    }
}
