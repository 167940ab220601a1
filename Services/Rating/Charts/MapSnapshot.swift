import Contracts
import Foundation

/// A widget's map snapshot drawn without map tiles: the origin, the search radius, a pin per place (orange when
/// investable, grey otherwise) labelled by its ticker or name, a distance scale and a note that no map was used.
public struct MapSnapshotRequest: Sendable, Equatable {
    public var origin: LatLng
    /// The search radius in metres: the drawn circle, and the extent the snapshot covers at least.
    public var radius: Double
    /// Labelled by ticker when investable, else by the place's name.
    public var pins: [MapSnapshotPin]
    /// Logical size (the PNG is twice as large).
    public var width: Int
    public var height: Int

    public init(origin: LatLng, radius: Double, pins: [MapSnapshotPin], width: Int, height: Int) {
        self.origin = origin
        self.radius = radius
        self.pins = pins
        self.width = width
        self.height = height
    }
}

/// The snapshot's geometry, pure: a local equirectangular projection around the origin scaled so the radius and
/// every pin fit, and a round scale-bar length.
public struct MapSnapshotLayout: Sendable {
    public let metresPerUnit: Double
    let width: Double
    let height: Double
    let origin: LatLng

    public init(_ request: MapSnapshotRequest) {
        width = Double(request.width)
        height = Double(request.height)
        origin = request.origin
        var extent = max(50, request.radius)
        for pin in request.pins {
            let (dx, dy) = Self.offset(LatLng(lat: pin.lat, lng: pin.lng), from: request.origin)
            extent = max(extent, abs(dx), abs(dy))
        }
        // The extent fits in 42 % of the shorter side, leaving room for labels.
        metresPerUnit = extent / (0.42 * min(width, height))
    }

    /// East and north offsets in metres.
    static func offset(_ p: LatLng, from o: LatLng) -> (Double, Double) {
        let metresPerDegree = 111_320.0
        return (
            (p.lng - o.lng) * metresPerDegree * cos(o.lat * .pi / 180), (p.lat - o.lat) * metresPerDegree
        )
    }

    /// The point in logical units (y down).
    public func point(_ p: LatLng) -> (x: Double, y: Double) {
        let (dx, dy) = Self.offset(p, from: origin)
        return (width / 2 + dx / metresPerUnit, height / 2 - dy / metresPerUnit)
    }

    /// The longest round length (1, 2 or 5 × 10ⁿ metres) at most a quarter of the width.
    public var scaleMetres: Double {
        let limit = width / 4 * metresPerUnit
        var best = 1.0
        var decade = 1.0
        while decade <= limit {
            for step in [1.0, 2.0, 5.0] where step * decade <= limit { best = step * decade }
            decade *= 10
        }
        return best
    }

    /// `250 m`, `1 km`, `1.5 km`.
    public static func distanceText(_ metres: Double) -> String {
        guard metres >= 1000 else { return "\(Int(metres)) m" }
        let km = metres / 1000
        return km == km.rounded() ? "\(Int(km)) km" : "\((km * 10).rounded() / 10) km"
    }
}

/// Draws a `MapSnapshotRequest` on a cairo canvas (call it on a renderer queue, never the cooperative pool).
enum MapSnapshotDrawing {
    static let investable = ChartColor(hex: 0xF0A36B)
    static let other = ChartColor(hex: 0x6B7280)
    static let originColor = ChartColor(hex: 0x1AE39A)
    static let ink = ChartColor(hex: 0x1F2937)

    static func draw(_ request: MapSnapshotRequest) throws(ChartError) -> [UInt8] {
        guard
            let canvas = CairoCanvas.make(
                pixelWidth: request.width * 2, pixelHeight: request.height * 2, scale: 2)
        else { throw ChartError(.renderFailed, "snapshot canvas could not be created") }
        let layout = MapSnapshotLayout(request)
        let w = Double(request.width)
        let h = Double(request.height)
        canvas.rect(0, 0, w, h)
        canvas.fill(ChartColor(hex: 0xF3F4F1))
        // Faint 100 × 100 unit grid, then the search radius.
        for x in stride(from: 0.0, through: w, by: 40) { canvas.polyline([(x, 0), (x, h)]) }
        for y in stride(from: 0.0, through: h, by: 40) { canvas.polyline([(0, y), (w, y)]) }
        canvas.stroke(ChartColor(hex: 0xE5E7EB), width: 0.5)
        let center = layout.point(request.origin)
        canvas.circle(center.x, center.y, radius: request.radius / layout.metresPerUnit)
        canvas.fill(originColor.with(alpha: 0.06), preserve: true)
        canvas.stroke(originColor.with(alpha: 0.5), width: 1, dash: [4, 3])
        // Pins, farthest first so the nearest stay on top.
        let ordered = request.pins.enumerated().sorted { a, b in
            let da = layout.point(LatLng(lat: a.element.lat, lng: a.element.lng))
            let db = layout.point(LatLng(lat: b.element.lat, lng: b.element.lng))
            return hypot(da.x - center.x, da.y - center.y) > hypot(db.x - center.x, db.y - center.y)
        }
        for (_, pin) in ordered {
            let p = layout.point(LatLng(lat: pin.lat, lng: pin.lng))
            let color = pin.investable ? investable : other
            canvas.move(p.x, p.y)
            canvas.line(p.x - 5, p.y - 10)
            canvas.line(p.x + 5, p.y - 10)
            canvas.close()
            canvas.fill(color)
            canvas.circle(p.x, p.y - 12, radius: 6)
            canvas.fill(color, preserve: true)
            canvas.stroke(ChartColor(hex: 0xFFFFFF), width: 1.2)
            let label = String(pin.label.prefix(14))
            let size = pin.investable ? 11.0 : 9.5
            let lw = canvas.textWidth(label, size: size, bold: pin.investable) + 6
            canvas.rect(p.x - lw / 2, p.y - 34, lw, 14)
            canvas.fill(ChartColor(hex: 0xFFFFFF, alpha: 0.85))
            canvas.text(label, x: p.x, y: p.y - 23.5, size: size, color: ink, bold: pin.investable, align: .center)
        }
        // The origin.
        canvas.circle(center.x, center.y, radius: 5.5)
        canvas.fill(originColor, preserve: true)
        canvas.stroke(ChartColor(hex: 0xFFFFFF), width: 2)
        // Scale bar and note.
        let metres = layout.scaleMetres
        let bar = metres / layout.metresPerUnit
        canvas.polyline([(12, h - 18), (12, h - 14), (12 + bar, h - 14), (12 + bar, h - 18)])
        canvas.stroke(ink, width: 1.5)
        canvas.text(MapSnapshotLayout.distanceText(metres), x: 12 + bar + 6, y: h - 12, size: 10, color: ink)
        canvas.text("Drawn by Mapvest · no map tiles", x: w - 8, y: h - 10, size: 8.5, color: other, align: .right)
        guard let png = canvas.png() else { throw ChartError(.renderFailed, "snapshot could not be encoded") }
        return png
    }
}
