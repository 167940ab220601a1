import Contracts
import Finance
import Foundation
import MarketData
import Messaging
import OpenRouter
import ResearchCore
import Runtime

/// `research.synthesis.get.v1`: a cached memo (24 h, Redis `mapvest:memo:v1:synthesis:<TICKER>`, the key the rating
/// reads) answers 200 for free; otherwise, without `generate`, 404 marked `X-Synthesis: miss` so the gateway can
/// decide who pays. With `generate`, one memo per ticker is written in this replica at a time (joiners are marked
/// `X-Research-Turn: replayed`): without `OPENROUTER_API_KEY` it answers the original's 502 naming the key before
/// reading anything; else the four layers are gathered at once, each best-effort (the stored edges only, the pulse
/// and the sector's environment brief from their caches or built and cached as their own routes do, the latest
/// ratio row) within the first half of the deadline, then the model chain (JSON, temperature 0.2, 30 s a model)
/// writes the memo within the rest. Only a written memo is cached; every model failing answers 502.
struct SynthesisCommands: Sendable {
    let graphs: GraphStore
    let pulse: PulseCommands
    let environment: EnvironmentCommands
    let market: MarketDataClient
    let openRouter: OpenRouterClient
    let cache: MemoCacheStore
    let seed = BrandSeed.shared
    let flights = BuildFlights<Outcome>()
    let logger: Logger

    static let needsModel = "OPENROUTER_API_KEY missing (Doppler)"
    static let failed = "synthesis memo generation failed"

    enum Outcome: Sendable {
        case written(SynthesisMemo)
        case failed(Int, String)
    }

    func get(_ command: SynthesisCommand, deadline: ContinuousClock.Instant) async throws -> Reply {
        let ticker = command.ticker
        if let cached = await cache.read(.synthesis, ticker, as: SynthesisMemo.self) { return .json(200, cached) }
        guard command.generate else {
            var reply = Reply.error(404, "no synthesis memo cached")
            reply.headers.append(("X-Synthesis", "miss"))
            return reply
        }
        guard openRouter.isConfigured else { return .error(502, Self.needsModel) }
        let (outcome, started) = await flights.run(ticker) { await self.write(ticker, deadline: deadline) }
        switch outcome {
        case .written(let memo):
            var reply = Reply.json(200, memo)
            reply.headers.append(("X-Research-Turn", started ? "new" : "replayed"))
            return reply
        case .failed(let status, let message):
            return .error(status, message)
        }
    }

    func write(_ ticker: String, deadline: ContinuousClock.Instant) async -> Outcome {
        let now = ContinuousClock.now
        let layersDeadline = now + (deadline - now) / 2
        async let edges = storedEdges(ticker)
        async let demand = demandPulse(ticker)
        async let field = environmentBrief(ticker, deadline: layersDeadline)
        async let ratios = latestRatios(ticker)
        let (read, pulse, brief, row) = await (edges, demand, field, ratios)
        let layers = SynthesisRules.Layers(
            ticker: ticker, edges: read, pulse: pulse, environment: brief, ratios: row.ratios, ratiosDate: row.date,
            ratiosSource: row.source)
        let outcome = await openRouter.chatJSON(
            decoding: [String: JSONValue].self, models: SynthesisRules.models, system: SynthesisRules.system,
            user: .text(SynthesisRules.prompt(layers)), temperature: 0.2, timeoutPerModel: .seconds(30),
            deadline: deadline, feature: "synthesis_memo", accept: { SynthesisRules.written($0) != nil })
        guard case .answered(let result) = outcome, let written = SynthesisRules.written(result.value) else {
            return .failed(502, Self.failed)
        }
        let memo = SynthesisMemo(
            ticker: ticker, memo: written.memo, bindingConstraint: written.bindingConstraint,
            demandDurability: written.demandDurability, pricingPower: written.pricingPower,
            generatedAt: Timestamp.iso8601(Date()), sources: SynthesisRules.sources(layers))
        await cache.write(.synthesis, ticker, summary: memo.summary, body: memo)
        return .written(memo)
    }

    /// The stored value chain only (never extracted here); unreadable is empty.
    private func storedEdges(_ ticker: String) async -> [CompanyEdge] {
        do {
            return try await graphs.load(ticker).edges
        } catch {
            logger.warning("synthesis: stored edges unreadable", [LogKeys.error: "\(error)"])
            return []
        }
    }

    /// The cached pulse, else one built (and cached) as `GET /v1/pulse` would, sharing its build in flight; nil when
    /// it cannot be built (no market-data key for its buyers, unreadable edges).
    private func demandPulse(_ ticker: String) async -> DemandPulse? {
        if let cached = await pulse.cached(ticker) { return cached }
        let pulse = self.pulse
        let (outcome, _) = await pulse.flights.run(ticker) { await pulse.build(ticker) }
        guard case .built(let built) = outcome else { return nil }
        return built
    }

    /// The brief of the ticker's seed sector: cached, else written (and cached) as `GET /v1/environment` would when
    /// its keys are configured, sharing its write in flight. Nil for a ticker outside the seed, when a key is missing
    /// or when no model answered in time.
    private func environmentBrief(_ ticker: String, deadline: ContinuousClock.Instant) async -> EnvironmentBrief? {
        guard let listed = seed.entry(forTicker: ticker)?.sector, let sector = SectorAliases.canonical(listed) else {
            return nil
        }
        if let cached = await environment.cached(sector) { return cached }
        guard environment.isAvailable else { return nil }
        let environment = self.environment
        let (outcome, _) = await environment.flights.run(sector) {
            await environment.write(sector, deadline: deadline)
        }
        guard case .written(let brief) = outcome else { return nil }
        return brief
    }

    /// The latest ratio row as labelled figures, its date and where it was read; empty when Massive has none.
    private func latestRatios(_ ticker: String) async -> (
        ratios: [SynthesisRules.Ratio], date: String?, source: Source?
    ) {
        guard let row = await market.ratios(ticker), !row.isEmpty else { return ([], nil, nil) }
        let labelled: [(String, Double?)] = [
            ("P/E", row.priceToEarnings), ("P/S", row.priceToSales), ("P/B", row.priceToBook),
            ("EV/EBITDA", row.evToEBITDA), ("Return on equity", row.returnOnEquity),
            ("Debt/equity", row.debtToEquity), ("Dividend yield", row.dividendYield),
        ]
        let ratios = labelled.compactMap { label, value in
            value.flatMap { $0.isFinite ? SynthesisRules.Ratio(label: label, value: $0) : nil }
        }
        let base = market.configuration.massiveBaseURL.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let source = Source(
            provider: .massive, url: "\(base)/stocks/financials/v1/ratios?ticker=\(ticker)&limit=1",
            fetchedAt: Timestamp.iso8601(Date()), confidence: .high)
        return (ratios, row.date, source)
    }
}
