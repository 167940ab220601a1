import Contracts
import Finance
import Foundation
import MarketData
import Runtime
import Synchronization

/// The hypothetical $100-per-find portfolio (`GET /v1/universe/summary`): each find with a positive found price and a
/// quote today for its effective ticker (ticker, else comparable) is worth `100 × price / foundPrice`. Finds without
/// either are counted in `findCount` and left out of the value: no price is guessed and no peer substituted.
struct UniverseSummarizer: Sendable {
    static let basisPerFind = 100.0
    let market: MarketDataClient
    /// Quotes fetched at once.
    var concurrency = 8

    /// Quotes once per distinct ticker, at most `concurrency` at a time; tickers still unanswered at `deadline` go
    /// unvalued.
    func summary(of finds: [Find], deadline: ContinuousClock.Instant) async -> UniverseSummary {
        let tickers = Set(finds.compactMap { Self.valuable($0)?.ticker }).sorted()
        let quotes = await self.quotes(tickers, deadline: deadline)
        return Self.summarize(finds, quotes: quotes, now: Date())
    }

    /// The arithmetic, given the quotes (keyed by upper-case ticker).
    static func summarize(_ finds: [Find], quotes: [String: Quote], now: Date) -> UniverseSummary {
        var valued = 0
        var value = 0.0
        var sources: [Source] = []
        for find in finds {
            guard let (ticker, foundPrice) = valuable(find), let quote = quotes[ticker], quote.price.isFinite,
                quote.price > 0
            else { continue }
            valued += 1
            value += basisPerFind * quote.price / foundPrice
            if let provider = quote.provider.flatMap(Source.Provider.init(rawValue:)),
                !sources.contains(where: { $0.provider == provider })
            {
                sources.append(Source(provider: provider, fetchedAt: quote.ts, confidence: confidence(quote.freshness)))
            }
        }
        let basis = basisPerFind * Double(valued)
        return UniverseSummary(
            findCount: finds.count, valuedFinds: valued, hypotheticalBasis: basis, hypotheticalValue: value,
            changePct: basis > 0 ? (value - basis) / basis * 100 : 0, generatedAt: Timestamp.iso8601(now),
            sources: sources)
    }

    /// The effective ticker and found price of a find that can be valued.
    private static func valuable(_ find: Find) -> (ticker: String, foundPrice: Double)? {
        guard let price = find.foundPrice, price.isFinite, price > 0,
            let ticker = RarityClassifier.effectiveTicker(ticker: find.ticker, comparable: find.comparable)
        else { return nil }
        return (ticker, price)
    }

    /// Never higher than the provider declared: real-time → high, delayed or end-of-day → medium, else low.
    private static func confidence(_ freshness: String?) -> Confidence {
        switch freshness {
        case "real-time": .high
        case "delayed", "end-of-day": .medium
        default: .low
        }
    }

    private func quotes(_ tickers: [String], deadline: ContinuousClock.Instant) async -> [String: Quote] {
        let left = deadline - .now
        guard !tickers.isEmpty, left > .milliseconds(50) else { return [:] }
        let found = Mutex<[String: Quote]>([:])
        let (market, concurrency) = (self.market, self.concurrency)
        _ = await withTimeLimit(left) {
            await withTaskGroup(of: (String, Quote?).self) { group in
                var pending = tickers.makeIterator()
                for _ in 0..<concurrency {
                    guard let ticker = pending.next() else { break }
                    group.addTask { (ticker, await market.quote(ticker)) }
                }
                for await (ticker, quote) in group {
                    if let quote { found.withLock { $0[ticker] = quote } }
                    if let ticker = pending.next() { group.addTask { (ticker, await market.quote(ticker)) } }
                }
            }
        }
        return found.withLock { $0 }
    }
}
