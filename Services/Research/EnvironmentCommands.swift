import Contracts
import Exa
import Foundation
import Messaging
import OpenRouter
import ResearchCore
import Runtime

/// `research.environment.get.v1`: a cached brief (24 h, Redis `mapvest:memo:v1:environment:<SECTOR>`, the key the
/// rating reads) answers 200 for free. A miss with neither `FRED_API_KEY` nor `EXA_API_KEY`, or without
/// `OPENROUTER_API_KEY`, answers the documented 503; otherwise, without `generate`, 404 marked `X-Environment: miss`.
/// With `generate`, one brief per sector is written in this replica at a time: the FRED series (6 s) and two Exa
/// searches (5 s) in parallel, then the model chain (JSON, temperature 0.3, 25 s a model, within the deadline). Only
/// a written brief is cached; every model failing answers 502.
struct EnvironmentCommands: Sendable {
    let fred: FredClient
    let exa: ExaClient
    let openRouter: OpenRouterClient
    let cache: MemoCacheStore
    let flights = BuildFlights<Outcome>()
    let logger: Logger

    static let needsData = "environment briefs need FRED_API_KEY or EXA_API_KEY; neither is configured"
    static let needsModel = "environment briefs need OPENROUTER_API_KEY"
    static let failed = "environment brief generation failed"

    enum Outcome: Sendable {
        case written(EnvironmentBrief)
        case failed(Int, String)
    }

    /// True when a brief can be written: FRED or Exa, and OpenRouter, configured.
    var isAvailable: Bool { (fred.isConfigured || exa.isConfigured) && openRouter.isConfigured }

    func get(_ command: EnvironmentCommand, deadline: ContinuousClock.Instant) async throws -> Reply {
        let sector = command.sector
        if let cached = await cached(sector) { return .json(200, cached) }
        if !fred.isConfigured && !exa.isConfigured { return .error(503, Self.needsData) }
        if !openRouter.isConfigured { return .error(503, Self.needsModel) }
        guard command.generate else {
            var reply = Reply.error(404, "no environment brief cached")
            reply.headers.append(("X-Environment", "miss"))
            return reply
        }
        let (outcome, started) = await flights.run(sector) { await self.write(sector, deadline: deadline) }
        switch outcome {
        case .written(let brief):
            var reply = Reply.json(200, brief)
            reply.headers.append(("X-Research-Turn", started ? "new" : "replayed"))
            return reply
        case .failed(let status, let message):
            return .error(status, message)
        }
    }

    func write(_ sector: String, deadline: ContinuousClock.Instant) async -> Outcome {
        async let series = readSeries(sector)
        async let web = search(sector)
        let (read, hits) = await (series, web)
        let outcome = await openRouter.chatJSON(
            models: EnvironmentRules.models, system: EnvironmentRules.system,
            user: .text(EnvironmentRules.prompt(sector, series: read, web: hits)), temperature: 0.3,
            timeoutPerModel: .seconds(25), deadline: deadline, feature: "environment_brief")
        guard case .answered(let result) = outcome, let written = EnvironmentRules.written(result.value) else {
            return .failed(502, Self.failed)
        }
        let now = Timestamp.iso8601(Date())
        let brief = EnvironmentBrief(
            sector: sector, headline: written.headline, body: written.body, tailwinds: written.tailwinds,
            headwinds: written.headwinds, series: read, generatedAt: now,
            sources: EnvironmentRules.sources(series: read, web: hits, fetchedAt: now))
        await store(brief)
        return .written(brief)
    }

    /// Every series of the sector at once, in the rules' order; those that failed are left out.
    private func readSeries(_ sector: String) async -> [EnvironmentSeries] {
        let specs = EnvironmentRules.series(sector)
        let fred = self.fred
        let found = await withTaskGroup(of: (Int, EnvironmentSeries?).self) { group in
            for (index, spec) in specs.enumerated() { group.addTask { (index, await fred.latest(spec)) } }
            return await group.reduce(into: [Int: EnvironmentSeries]()) { $0[$1.0] = $1.1 }
        }
        return specs.indices.compactMap { found[$0] }
    }

    /// The two searches (3 hits each, 5 s), snippets at most 280 characters, deduped by URL.
    private func search(_ sector: String) async -> [EnvironmentRules.WebHit] {
        guard exa.isConfigured else { return [] }
        let year = Calendar(identifier: .gregorian).component(.year, from: Date())
        let exa = self.exa
        let queries = EnvironmentRules.queries(sector, year: year)
        let answers = await withTaskGroup(of: (Int, [ExaHit]).self) { group in
            for (index, query) in queries.enumerated() {
                group.addTask {
                    (
                        index,
                        await exa.search(query: query, numResults: 3, snippetLength: 280, timeout: .seconds(5)).hits
                    )
                }
            }
            return await group.reduce(into: [Int: [ExaHit]]()) { $0[$1.0] = $1.1 }
        }
        var seen: Set<String> = []
        return queries.indices.flatMap { answers[$0] ?? [] }.filter { seen.insert($0.url).inserted }.map {
            EnvironmentRules.WebHit(title: $0.title, url: $0.url, snippet: String(($0.snippet ?? "").prefix(280)))
        }
    }

    func cached(_ sector: String) async -> EnvironmentBrief? {
        await cache.read(.environment, sector, as: EnvironmentBrief.self)
    }

    private func store(_ brief: EnvironmentBrief) async {
        await cache.write(.environment, brief.sector, summary: brief.summary, body: brief)
    }
}
