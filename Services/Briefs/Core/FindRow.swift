import Contracts
import Finance
import Foundation
import Geo
import Runtime

/// One find as Briefs reads it from its read model of Identify's finds.
public struct FindRow: Sendable, Equatable {
    public let findId: String
    public let brand: String
    /// The find's ticker, else its public comparable (upper case): the symbol its value follows.
    public let ticker: String?
    public let sector: String?
    public let geohash6: String?
    public let foundPrice: Double?

    public init(
        findId: String, brand: String, ticker: String?, sector: String?, geohash6: String?, foundPrice: Double?
    ) {
        self.findId = findId
        self.brand = brand
        self.ticker = ticker
        self.sector = sector
        self.geohash6 = geohash6
        self.foundPrice = foundPrice
    }
}

/// A `find.recorded` event's fields as the read model stores them: the effective ticker upper-cased, its seed
/// sector when the seed lists it, a positive finite price, a valid lower-case geohash-6 tile, and a found time
/// never in the future.
public struct RecordedFind: Sendable, Equatable {
    public let ticker: String?
    public let sector: String?
    public let foundPrice: Double?
    public let geohash6: String?
    public let foundAt: Date

    public init(_ event: FindRecordedEvent, now: Date) {
        let ticker = RarityClassifier.effectiveTicker(ticker: event.ticker, comparable: event.comparable)
        self.ticker = ticker
        sector = ticker.flatMap { BrandSeed.shared.entry(forTicker: $0) }.map {
            SectorAliases.canonical($0.sector) ?? $0.sector
        }
        foundPrice = event.foundPrice.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        geohash6 = event.geohash6.map { $0.lowercased() }.flatMap {
            $0.count == 6 && Geohash.center($0) != nil ? $0 : nil
        }
        foundAt = Timestamp.parse(event.createdAt).map { min($0, now) } ?? now
    }
}
