/// Wire types of the widgets' map snapshot (docs/COMPATIBILITY.md#widgets).

/// A place on the snapshot: labelled by its ticker when investable, else by its name.
public struct MapSnapshotPin: Codable, Sendable, Equatable {
    public var lat: Double
    public var lng: Double
    public var label: String
    public var investable: Bool

    public init(lat: Double, lng: Double, label: String, investable: Bool) {
        self.lat = lat
        self.lng = lng
        self.label = label
        self.investable = investable
    }
}

/// `GET /v1/widget/map-snapshot` without a Google key: Rating draws the snapshot (cairo) from the gateway's pins.
public struct MapSnapshotCommand: Codable, Sendable, Equatable {
    public static let name = "widget.map-snapshot.v1"
    public var lat: Double
    public var lng: Double
    /// Metres.
    public var radius: Double
    /// Logical size, 1…640 (the PNG is twice as large, as Google's `scale=2`).
    public var width: Int
    public var height: Int
    public var pins: [MapSnapshotPin]

    public init(lat: Double, lng: Double, radius: Double, width: Int, height: Int, pins: [MapSnapshotPin]) {
        self.lat = lat
        self.lng = lng
        self.radius = radius
        self.width = width
        self.height = height
        self.pins = pins
    }
}

/// The drawn snapshot: `png` is the image, base64.
public struct MapSnapshotReply: Codable, Sendable, Equatable {
    public var png: String
    public init(png: String) { self.png = png }
}
