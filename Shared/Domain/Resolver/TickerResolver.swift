import Contracts
import Exa
import Finance
import Foundation
import MarketData
import OpenRouter
import Runtime

/// `resolveTicker` (docs/COMPATIBILITY.md#identify-processing, #brand-join): seed direct → seed substring → parent name
/// → ticker-shaped text confirmed by a live quote → Exa search with LLM extraction, citations required. Nothing invents
/// a ticker: a symbol from the web is accepted only when an Exa hit cites it explicitly and a live quote confirms it is
/// listed.
public struct TickerResolver: Sendable {
    let matcher: BrandMatcher
    let cache: BrandTickerCache
    let market: MarketDataClient
    let exa: ExaClient
    let openRouter: OpenRouterClient
    let flights = SingleFlight<String, BrandResolution>()
    let logger: Logger

    public init(
        cache: BrandTickerCache, market: MarketDataClient, exa: ExaClient, openRouter: OpenRouterClient,
        matcher: BrandMatcher = .shared, logger: Logger
    ) {
        self.cache = cache
        self.market = market
        self.exa = exa
        self.openRouter = openRouter
        self.matcher = matcher
        self.logger = logger
    }

    /// The cache key of a brand or place name: lowercase, trimmed, whitespace collapsed.
    public static func key(_ name: String) -> String { BrandSeed.normalize(name) }

    /// The seed-only steps (no network), for callers that batch the rest.
    public func fromSeed(_ name: String, now: Date = Date()) -> BrandResolution? {
        guard let match = matcher.match(name) else { return nil }
        let entry = match.entry
        return BrandResolution(
            brand: Brand(
                name: name.trimmingCharacters(in: .whitespacesAndNewlines), parent: entry.parent,
                isPublic: entry.isPublic,
                ticker: Ticker(symbol: entry.ticker, exchange: entry.exchange, parent: entry.parent),
                sector: entry.sector),
            sources: [Source(provider: .manual, fetchedAt: Timestamp.iso8601(now), confidence: .high)])
    }

    /// - Parameter seedChecked: the caller already ran `fromSeed` and it missed (skips a second scan of the seed).
    public func resolve(_ name: String, seedChecked: Bool = false) async -> BrandResolution {
        if !seedChecked, let seeded = fromSeed(name) { return seeded }
        let key = Self.key(name)
        return await flights.run(key) {
            if let cached = await cache.get(key) { return cached }
            let owner = await cache.claim(key, for: .seconds(5))
            if !owner {
                // Another replica is computing it: give it a moment, then compute anyway.
                for _ in 0..<10 {
                    try? await Task.sleep(for: .milliseconds(200))
                    if let cached = await cache.get(key) { return cached }
                }
            }
            let (resolution, cacheable) = await resolveOnline(name)
            if cacheable { await cache.put(key, resolution) }
            // Released at once, so a caller after an uncacheable answer (an upstream was down) does not wait 2 s.
            if owner { await cache.release(key) }
            return resolution
        }
    }

    /// Quote confirmation, then the web. Returns whether the answer may be cached (not when upstreams were missing).
    private func resolveOnline(_ name: String) async -> (BrandResolution, Bool) {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        let now = Timestamp.iso8601(Date())
        if BrandMatcher.isTickerShaped(trimmed) {
            let symbol = trimmed.uppercased().replacingOccurrences(of: "$", with: "")
            if let quote = await market.quote(symbol) {
                return (
                    BrandResolution(
                        brand: Brand(name: quote.name ?? symbol, isPublic: true, ticker: Ticker(symbol: quote.symbol)),
                        sources: [
                            Source(
                                provider: quote.provider == "massive" ? .massive : .yahoo, fetchedAt: now,
                                confidence: .high)
                        ]), true
                )
            }
        }
        let search = await exa.search(
            query: "\(trimmed) parent company ticker stock symbol", numResults: 8, highlightSentences: 2)
        let hits = search.hits
        guard !hits.isEmpty else {
            return (BrandResolution(brand: Brand(name: trimmed, isPublic: false), sources: []), search.status == .ok)
        }
        if let listed = await listedCompany(name: trimmed, hits: hits, now: now) { return (listed, true) }
        let sources = hits.prefix(3).map { exa.source(for: $0, confidence: .medium) }
        return (BrandResolution(brand: Brand(name: trimmed, isPublic: false), sources: Array(sources)), true)
    }

    private struct Extraction: Decodable, Sendable {
        let isPublic: Bool?
        let ticker: String?
        let exchange: String?
        let parent: String?
        let sector: String?
    }

    /// The LLM reads the evidence for a parent ticker (its "not public" is final); without a model, symbols cited
    /// explicitly by a hit that names the brand are tried. Either way the symbol must be cited by a hit and confirmed
    /// by a live quote.
    private func listedCompany(name: String, hits: [ExaHit], now: String) async -> BrandResolution? {
        let evidence = hits.prefix(8).enumerated().map { i, hit in
            "[\(i)] \(hit.title) — \(hit.url)\n\(hit.snippet ?? "")"
        }.joined(separator: "\n")
        var candidates: [(symbol: String, exchange: String?, parent: String?, sector: String?)] = []
        let outcome = await openRouter.chatJSON(
            decoding: Extraction.self, models: OpenRouterModels.comparables,
            system: """
                You extract the publicly traded parent of a consumer brand from web evidence. Answer strict JSON \
                {"isPublic": bool, "ticker": string|null, "exchange": string|null, "parent": string|null, \
                "sector": string|null (GICS sector)}. Only name a ticker that the evidence states; never guess.
                """,
            user: .text("Brand: \(name)\nEvidence:\n\(evidence)"), temperature: 0, timeoutPerModel: .seconds(12),
            feature: "resolve-ticker")
        if let extraction = outcome.result?.value, extraction.isPublic == true,
            let symbol = extraction.ticker?.uppercased().trimmingCharacters(in: .whitespaces)
        {
            candidates.append((symbol, extraction.exchange, extraction.parent, extraction.sector))
        }
        if outcome.result == nil {
            // No model answered: fall back to symbols that a hit naming the brand cites explicitly.
            let lowered = name.lowercased()
            for hit in hits where "\(hit.title) \(hit.snippet ?? "")".lowercased().contains(lowered) {
                for symbol in TickerCitations.extract("\(hit.title) \(hit.snippet ?? "")")
                where !candidates.contains(where: { $0.symbol == symbol }) {
                    candidates.append((symbol, nil, nil, nil))
                }
            }
        }
        for candidate in candidates.prefix(3) {
            guard
                let citing = hits.first(where: {
                    TickerCitations.cites("\($0.title) \($0.snippet ?? "")", candidate.symbol)
                }),
                let quote = await market.quote(candidate.symbol)
            else { continue }
            var sources = [exa.source(for: citing, confidence: .high)]
            if let model = outcome.result?.modelUsed, !model.isEmpty {
                sources.append(Source(provider: .openrouter, fetchedAt: now, confidence: .medium))
            }
            let parent = candidate.parent ?? quote.name
            return BrandResolution(
                brand: Brand(
                    name: name, parent: parent, isPublic: true,
                    ticker: Ticker(symbol: quote.symbol, exchange: candidate.exchange, parent: parent),
                    sector: candidate.sector.flatMap(SectorAliases.canonical)),
                sources: sources)
        }
        return nil
    }
}
