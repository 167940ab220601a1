import Contracts
import Finance
import Foundation
import Runtime

/// One capture, as the state computation needs it: a brand (and its ticker) a user found in a geohash-6 tile.
public struct Capture: Sendable, Hashable {
    public let tile: String
    public let brandKey: String
    public let ticker: String?

    public init(tile: String, brandKey: String, ticker: String?) {
        self.tile = tile
        self.brandKey = brandKey
        self.ticker = ticker
    }
}

/// One `find.recorded` event as a row of the captures read model: the tile lower-cased, the brand as the resolver's
/// key (`BrandSeed.normalize`, what `TickerResolver.key` gives), the ticker trimmed and upper-cased (empty: none),
/// the find's time (unparsable: `now`).
public struct CaptureRecord: Sendable, Equatable {
    public let findId: String
    public let userId: String
    public let capture: Capture
    public let capturedAt: Date

    /// Nil for a find without a geohash-6 tile or a brand: it has no place on the map and is skipped.
    public init?(_ event: FindRecordedEvent, now: Date = Date()) {
        guard let tile = event.geohash6?.lowercased(), tile.count == 6 else { return nil }
        let brandKey = BrandSeed.normalize(event.brand)
        guard !brandKey.isEmpty else { return nil }
        let ticker = event.ticker.map { $0.trimmingCharacters(in: .whitespaces).uppercased() }.flatMap {
            $0.isEmpty ? nil : $0
        }
        findId = event.findId
        userId = event.userId
        capture = Capture(tile: tile, brandKey: brandKey, ticker: ticker)
        capturedAt = Timestamp.parse(event.createdAt) ?? now
    }
}
