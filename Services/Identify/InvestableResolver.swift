import Contracts
import Finance
import Foundation
import MarketData
import Resolver
import Runtime

/// Turns detections into investables (docs/COMPATIBILITY.md#identify-processing): each detection with a brand is
/// resolved in parallel, output in detection order; public brands get their sources and a quote if one arrives within
/// 500 ms; private brands get comparables and ETF exposure. Rarity is stamped on every investable.
struct InvestableResolver: Sendable {
    static let quoteBudget: Duration = .milliseconds(500)

    let tickers: TickerResolver
    let comparables: ComparableResolver
    let etfs: ETFExposureResolver
    let market: MarketDataClient

    func investables(for detections: [Detection], citeVision: Bool) async -> [Investable] {
        let branded = detections.enumerated().compactMap { i, d in d.brand.map { (i, $0, d) } }
        return await withTaskGroup(of: (Int, Investable).self) { group in
            for (index, brand, detection) in branded {
                group.addTask { (index, await investable(brand: brand, detection: detection, citeVision: citeVision)) }
            }
            var out: [(Int, Investable)] = []
            for await item in group { out.append(item) }
            return out.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    private func investable(brand name: String, detection: Detection, citeVision: Bool) async -> Investable {
        let now = Timestamp.iso8601(Date())
        let resolution = await tickers.resolve(name)
        var brand = resolution.brand
        brand.name = name
        var sources = resolution.sources
        if citeVision {
            sources.append(Source(provider: .openrouter, fetchedAt: now, confidence: detection.confidence))
        }
        var investable: Investable
        if brand.isPublic, let symbol = brand.ticker?.symbol {
            let market = self.market
            let quote = await withDeadline(Self.quoteBudget) { await market.quote(symbol) } ?? nil
            investable = Investable(brand: brand, confidence: detection.confidence, sources: sources, quote: quote)
        } else {
            async let comparables = comparables.resolve(brand: name, hintSector: detection.sector)
            async let etfs = etfs.resolve(detection.sector ?? name)
            investable = Investable(
                brand: brand, comparables: await comparables, etfs: await etfs,
                confidence: detection.confidence == .high ? .medium : .low, sources: sources)
        }
        investable.rarity = RarityClassifier.classify(
            ticker: investable.brand.ticker?.symbol, comparable: investable.comparables.first?.ticker,
            isPublic: investable.brand.isPublic)
        return investable
    }
}
