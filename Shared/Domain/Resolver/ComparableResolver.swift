import Contracts
import Exa
import Finance
import Foundation
import OpenRouter
import Runtime

/// `resolveComparable` (docs/COMPATIBILITY.md#resolve-comparable): the closest public companies to a private brand,
/// from three Exa searches judged by an LLM, or — when every model fails — the tickers the evidence cites explicitly.
/// Every pick is validated (1–5 letters, not a common word), deduplicated, scored in [0.3, 1] and cited.
public struct ComparableResolver: Sendable {
    let exa: ExaClient
    let openRouter: OpenRouterClient
    let logger: Logger

    public init(exa: ExaClient, openRouter: OpenRouterClient, logger: Logger) {
        self.exa = exa
        self.openRouter = openRouter
        self.logger = logger
    }

    private struct Picks: Decodable, Sendable {
        struct Pick: Decodable, Sendable {
            let ticker: String?
            let name: String?
            let score: Double?
            let reasoning: String?
            let sourceUrl: String?
        }
        let picks: [Pick]
    }

    public func resolve(brand: String, hintSector: String?) async -> [Comparable] {
        let sector = hintSector.map { " \($0)" } ?? ""
        let queries = [
            "\(brand) competitors publicly traded companies",
            "\(brand) parent company ticker stock symbol",
            "publicly traded\(sector) companies comparable to \(brand) stock ticker",
        ]
        let results = await withTaskGroup(of: (Int, [ExaHit]).self) { group in
            for (i, query) in queries.enumerated() {
                group.addTask { (i, await exa.search(query: query, numResults: 5, highlightSentences: 2).hits) }
            }
            var out: [(Int, [ExaHit])] = []
            for await r in group { out.append(r) }
            return out.sorted { $0.0 < $1.0 }.flatMap(\.1)
        }
        var seen = Set<String>()
        let hits = results.filter { seen.insert($0.url).inserted }
        guard !hits.isEmpty else { return [] }
        let evidence = Array(hits.prefix(8))
        let now = Timestamp.iso8601(Date())

        let judged = await judge(brand: brand, sector: hintSector, evidence: evidence)
        let raw: [(ticker: String, name: String, score: Double, reasoning: String, url: String?)]
        if let judged {
            raw = judged.picks.compactMap { pick in
                guard let ticker = pick.ticker?.trimmingCharacters(in: .whitespaces).uppercased() else { return nil }
                return (
                    ticker, pick.name ?? ticker, pick.score ?? 0.5, pick.reasoning ?? "Comparable public company.",
                    pick.sourceUrl
                )
            }
        } else {
            let scores = [0.85, 0.70, 0.55]
            let cited = evidence.flatMap { hit in
                TickerCitations.extract("\(hit.title) \(hit.snippet ?? "")").map { ($0, hit) }
            }
            var unique: [(String, ExaHit)] = []
            for (symbol, hit) in cited where !unique.contains(where: { $0.0 == symbol }) {
                unique.append((symbol, hit))
            }
            raw = unique.prefix(3).enumerated().map { i, item in
                (item.0, item.0, scores[i], "Cited as a listed company in coverage of \(brand).", item.1.url)
            }
        }

        var picked: [Comparable] = []
        for pick in raw where TickerValidation.isValidCandidate(pick.ticker) {
            guard !picked.contains(where: { $0.ticker == pick.ticker }), picked.count < 3 else { continue }
            let score = min(1, max(0.3, pick.score.isFinite ? pick.score : 0.5))
            let source: Source
            if let url = pick.url, let hit = evidence.first(where: { $0.url == url }) {
                source = exa.source(for: hit, confidence: score >= 0.7 ? .high : .medium)
            } else {
                source = Source(provider: .openrouter, fetchedAt: now, confidence: .medium)
            }
            picked.append(
                Comparable(
                    ticker: pick.ticker, name: pick.name, score: (score * 100).rounded() / 100,
                    reasoning: String(pick.reasoning.prefix(400)), sources: [source]))
        }
        return picked
    }

    private func judge(brand: String, sector: String?, evidence: [ExaHit]) async -> Picks? {
        struct Item: Encodable {
            let i: Int
            let title: String
            let url: String
            let snippet: String
        }
        let items = evidence.enumerated().map { Item(i: $0, title: $1.title, url: $1.url, snippet: $1.snippet ?? "") }
        guard let json = try? JSONEncoder().encode(items) else { return nil }
        let outcome = await openRouter.chatJSON(
            decoding: Picks.self, models: OpenRouterModels.comparables,
            system: """
                You pick the closest publicly traded comparables for a private brand, using only the evidence given. \
                Answer strict JSON {"picks":[{"ticker","name","score" (0-1),"reasoning","sourceUrl"}]} with at most 3 \
                picks; sourceUrl must be one of the evidence urls. Never invent a ticker.
                """,
            user: .text(
                "Brand: \(brand)\(sector.map { "\nSector: \($0)" } ?? "")\nEvidence: \(String(decoding: json, as: UTF8.self))"
            ),
            temperature: 0.1, timeoutPerModel: .seconds(20), feature: "comparables")
        return outcome.result?.value
    }
}

/// `resolveEtfExposure` (docs/COMPATIBILITY.md#resolve-comparable): ETFs the web says hold the sector or brand (cited,
/// or on the known-ETF list), else the fixed top-3 ETFs of the seed sector. Weights are unknown (0).
public struct ETFExposureResolver: Sendable {
    let exa: ExaClient

    public init(exa: ExaClient) { self.exa = exa }

    public func resolve(_ query: String) async -> [EtfExposure] {
        let now = Timestamp.iso8601(Date())
        let hits = await exa.search(
            query: "\(query) ETF holdings constituent weight ticker", numResults: 5, highlightSentences: 1
        ).hits
        var picks: [EtfExposure] = []
        for hit in hits {
            let text = "\(hit.title) \(hit.snippet ?? "")"
            let cited = Set(TickerCitations.extract(text))
            let words = text.split(whereSeparator: { !$0.isLetter }).map(String.init)
            for word in words where word.count <= 5 && word == word.uppercased() {
                guard cited.contains(word) || SectorETFs.contractAllowList.contains(word),
                    !picks.contains(where: { $0.ticker == word }), picks.count < 3
                else { continue }
                picks.append(
                    EtfExposure(
                        ticker: word, name: SectorETFs.names[word] ?? word, weight: 0,
                        source: exa.source(for: hit, confidence: cited.contains(word) ? .medium : .low)))
            }
        }
        if !picks.isEmpty { return picks }
        return SectorETFs.fallback(sectorOrQuery: query).map {
            EtfExposure(
                ticker: $0.ticker, name: $0.name, weight: 0,
                source: Source(provider: .manual, fetchedAt: now, confidence: .medium))
        }
    }
}
