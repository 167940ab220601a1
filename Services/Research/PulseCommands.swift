import Contracts
import Foundation
import MarketData
import Messaging
import ResearchCore
import Runtime

/// `research.pulse.get.v1`: a cached pulse (24 h, Redis `mapvest:memo:v1:pulse:<TICKER>`, the key the rating reads)
/// answers 200 for free. Otherwise, without `generate`, 404 marked `X-Pulse: miss` so the gateway can decide who
/// pays. With `generate`, one build per ticker runs in this replica at a time (callers that arrive meanwhile share
/// it, marked `X-Research-Turn: replayed`; the starter gets `new`). A build reads the stored value chain only (it
/// never extracts a graph), asks Massive for each buyer's income and cash-flow statements, caches the pulse and
/// answers it. Buyers to look up but no `MASSIVE_API_KEY`: 503 saying so (nothing cached, nothing charged).
struct PulseCommands: Sendable {
    let graphs: GraphStore
    let market: MarketDataClient
    let cache: MemoCacheStore
    let flights = BuildFlights<Outcome>()
    let logger: Logger

    static let needsMassive = "demand pulse needs MASSIVE_API_KEY to read its buyers' statements"

    func get(_ command: PulseCommand) async throws -> Reply {
        let ticker = command.ticker
        if let cached = await cached(ticker) { return .json(200, cached) }
        guard command.generate else {
            var reply = Reply.error(404, "no pulse cached")
            reply.headers.append(("X-Pulse", "miss"))
            return reply
        }
        let (outcome, started) = await flights.run(ticker) { await self.build(ticker) }
        switch outcome {
        case .built(let pulse):
            var reply = Reply.json(200, pulse)
            reply.headers.append(("X-Research-Turn", started ? "new" : "replayed"))
            return reply
        case .unavailable(let status, let message):
            return .error(status, message)
        }
    }

    enum Outcome: Sendable {
        case built(DemandPulse)
        case unavailable(Int, String)
    }

    /// Builds, caches and returns the pulse; never throws.
    func build(_ ticker: String) async -> Outcome {
        let edges: [CompanyEdge]
        do {
            edges = try await graphs.load(ticker).edges
        } catch {
            logger.warning("pulse: stored edges unreadable", [LogKeys.error: "\(error)"])
            return .unavailable(502, "demand pulse failed")
        }
        let candidates = DemandPulseMath.buyers(edges)
        if !candidates.isEmpty, market.configuration.massiveAPIKey == nil {
            return .unavailable(503, Self.needsMassive)
        }
        let market = self.market
        let fetched = await withTaskGroup(of: (String, BuyerStatements?, [Source]).self) { group in
            for edge in candidates {
                let buyer = (edge.dstTicker ?? "").uppercased()
                group.addTask {
                    async let income = market.statements(.income, buyer, limit: DemandPulseMath.statementLimit)
                    async let cash = market.statements(.cashFlow, buyer, limit: DemandPulseMath.statementLimit)
                    let pages = [await income, await cash]
                    let rows = pages.compactMap { $0 }.flatMap(\.periods)
                    guard !rows.isEmpty else { return (buyer, nil, []) }
                    let at = Timestamp.iso8601(Date())
                    let sources = pages.compactMap { $0 }.filter { !$0.periods.isEmpty }.map {
                        Source(provider: .massive, url: $0.url, fetchedAt: at, confidence: .high)
                    }
                    let statements = BuyerStatements(
                        revenue: (pages[0]?.periods ?? []).compactMap { p in
                            p.revenue.map { PeriodValue(fiscalDate: p.fiscalDate, value: $0) }
                        },
                        capex: (pages[1]?.periods ?? []).compactMap { p in
                            p.capex.map { PeriodValue(fiscalDate: p.fiscalDate, value: $0) }
                        })
                    return (buyer, statements, sources)
                }
            }
            var all: [(String, BuyerStatements?, [Source])] = []
            for await one in group { all.append(one) }
            return all
        }
        var statements: [String: BuyerStatements] = [:]
        var sources: [Source] = []
        for edge in candidates {
            guard let found = fetched.first(where: { $0.0 == (edge.dstTicker ?? "").uppercased() }),
                let rows = found.1
            else { continue }
            statements[found.0] = rows
            sources += found.2
        }
        let pulse = DemandPulseMath.compute(
            ticker: ticker, candidates: candidates, statements: statements, sources: sources,
            generatedAt: Timestamp.iso8601(Date()))
        await store(pulse)
        return .built(pulse)
    }

    /// The cached pulse, or nil when absent or unreadable.
    func cached(_ ticker: String) async -> DemandPulse? {
        await cache.read(.pulse, ticker, as: DemandPulse.self)
    }

    private func store(_ pulse: DemandPulse) async {
        await cache.write(.pulse, pulse.ticker, summary: pulse.summary, body: pulse)
    }
}
