import Contracts
import Finance
import Foundation
import Headlines
import MarketData
import RatingCore
import Runtime

/// Assembles a ticker's evidence packet (docs/COMPATIBILITY.md#rating-evidence): every source at once, each with its
/// own budget (3 s); a source that fails, times out or has nothing is absent. Never builds a Prism, Situate or memo.
public struct EvidenceCollector: Sendable {
    let market: MarketDataClient
    let underlying: UnderlyingClient
    let memos: ResearchMemos
    let materiality: HeadlineMateriality
    let seed: BrandSeed
    /// Each source's budget. Default 3 s.
    public var perSource: Duration

    public init(
        market: MarketDataClient, underlying: UnderlyingClient, memos: ResearchMemos, materiality: HeadlineMateriality,
        seed: BrandSeed = .shared, perSource: Duration = .seconds(3)
    ) {
        self.market = market
        self.underlying = underlying
        self.memos = memos
        self.materiality = materiality
        self.seed = seed
        self.perSource = perSource
    }

    /// The resolved sources, in the contract's order.
    public func collect(_ ticker: String) async -> [Evidence] {
        let budget = perSource
        let found = await withTaskGroup(of: Evidence?.self) { group in
            for id in EvidenceSourceID.allCases {
                group.addTask {
                    let started = ContinuousClock.now
                    let evidence = await withTimeLimit(budget) { await self.source(id, ticker: ticker, budget: budget) }
                    let outcome: String
                    switch evidence {
                    case .none: outcome = "timeout"
                    case .some(.none): outcome = "absent"
                    case .some(.some): outcome = "ok"
                    }
                    MetricsRegistry.shared.counter(
                        "rating_evidence_total", help: "Rating evidence sources by outcome",
                        labels: ["source": id.rawValue, "outcome": outcome]
                    ).increment()
                    MetricsRegistry.shared.histogram(
                        "rating_evidence_duration_seconds", help: "Rating evidence source latency",
                        labels: ["source": id.rawValue]
                    ).observe(since: started)
                    return evidence ?? nil
                }
            }
            var all: [Evidence] = []
            for await evidence in group { if let evidence { all.append(evidence) } }
            return all
        }
        let order = Dictionary(uniqueKeysWithValues: EvidenceSourceID.allCases.enumerated().map { ($1, $0) })
        return found.sorted { (order[$0.id] ?? 0) < (order[$1.id] ?? 0) }
    }

    func source(_ id: EvidenceSourceID, ticker: String, budget: Duration) async -> Evidence? {
        switch id {
        case .quote: return await quote(ticker)
        case .ratios: return await ratios(ticker)
        case .synthesis: return await memo(.synthesis, id: id, key: ticker)
        case .pulse: return await memo(.pulse, id: id, key: ticker)
        case .environment:
            guard let sector = seed.entry(forTicker: ticker)?.sector else { return nil }
            return await memo(.environment, id: id, key: sector)
        case .prism: return await prism(ticker, timeout: budget)
        case .situate: return await situate(ticker, timeout: budget)
        case .headlines: return await headlines(ticker, budget: budget)
        case .peerForecast: return await peerForecast(ticker, timeout: budget)
        }
    }

    // MARK: - Sources

    func quote(_ ticker: String) async -> Evidence? {
        async let quoteTask = market.quote(ticker)
        async let historyTask = market.history(ticker, period: .threeMonths, interval: .oneDay)
        guard let quote = await quoteTask else { return nil }
        let history = await historyTask
        var facts: [String: JSONValue] = [
            "price": .number(quote.price), "currency": .string(quote.currency),
            "change_pct_today": .number(round2(quote.changePct)),
        ]
        var summary =
            "Price \(EvidenceText.number(quote.price)) \(quote.currency) (\(EvidenceText.percent(quote.changePct, isFraction: false, digits: 2)) today)"
        if let stats = HistoryStats(history ?? [], price: quote.price) {
            var parts: [String] = []
            if let r = stats.return1m {
                facts["return_1m_pct"] = .number(round2(r * 100))
                parts.append("1m \(EvidenceText.percent(r))")
            }
            facts["return_3m_pct"] = .number(round2(stats.return3m * 100))
            parts.append("3m \(EvidenceText.percent(stats.return3m))")
            facts["pct_below_3m_high"] = .number(round2(stats.belowHigh * 100))
            summary +=
                "; " + parts.joined(separator: ", ")
                + "; \(EvidenceText.number(stats.belowHigh * 100, digits: 1))% below 3-month high"
        }
        return Evidence(id: .quote, summary: summary, facts: facts)
    }

    func ratios(_ ticker: String) async -> Evidence? {
        guard let r = await market.ratios(ticker) else { return nil }
        var facts: [String: JSONValue] = [:]
        var parts: [String] = []
        func add(_ key: String, _ label: String, _ value: Double?, percent: Bool = false) {
            guard let value else { return }
            facts[key] = .number(round3(value))
            parts.append(
                percent
                    ? "\(label) \(EvidenceText.number(value * 100, digits: 1))%"
                    : "\(label) \(EvidenceText.number(value, digits: 1))")
        }
        add("pe", "P/E", r.priceToEarnings)
        add("ps", "P/S", r.priceToSales)
        add("pb", "P/B", r.priceToBook)
        add("ev_ebitda", "EV/EBITDA", r.evToEBITDA)
        add("roe", "ROE", r.returnOnEquity, percent: true)
        add("debt_to_equity", "D/E", r.debtToEquity)
        add("dividend_yield", "dividend yield", r.dividendYield, percent: true)
        guard !parts.isEmpty else { return nil }
        return Evidence(id: .ratios, summary: parts.joined(separator: ", "), facts: facts)
    }

    func memo(_ kind: ResearchMemos.Kind, id: EvidenceSourceID, key: String) async -> Evidence? {
        guard let text = await memos.summary(kind, key: key) else { return nil }
        return Evidence(id: id, summary: text, facts: ["memo": .string(EvidenceText.clip(text, limit: 600))])
    }

    func prism(_ ticker: String, timeout: Duration) async -> Evidence? {
        guard let summary = await underlying.prism(ticker, timeout: timeout) else { return nil }
        var facts: [String: JSONValue] = [:]
        var parts: [String] = []
        if let rec = summary.recommendation {
            facts["recommendation"] = .string(rec.action)
            var text = "Prism \(rec.action.replacingOccurrences(of: "_", with: " "))"
            var detail: [String] = []
            if let strength = rec.strength {
                facts["strength"] = .string(strength)
                detail.append(strength)
            }
            if let conviction = rec.conviction, conviction.isFinite {
                facts["conviction"] = .number(round3(conviction))
                detail.append("conviction \(EvidenceText.number(conviction))")
            }
            if !detail.isEmpty { text += " (\(detail.joined(separator: ", ")))" }
            parts.append(text)
        }
        if let bull = summary.bull, let neutral = summary.neutral, let bear = summary.bear {
            facts["split"] = .object(["bull": .number(bull), "neutral": .number(neutral), "bear": .number(bear)])
            parts.append("bull \(Self.share(bull)) / neutral \(Self.share(neutral)) / bear \(Self.share(bear))")
        }
        if let regime = summary.regime {
            facts["regime"] = .string(regime)
            parts.append("regime \(regime)")
        }
        if let line = summary.recommendation?.oneLine ?? summary.oneLine {
            facts["one_line"] = .string(line)
            parts.append(line)
        }
        return Evidence(
            id: .prism, summary: parts.joined(separator: "; "),
            ref: underlying.url(UnderlyingClient.summaryPath(.prism, ticker)),
            facts: facts)
    }

    func situate(_ ticker: String, timeout: Duration) async -> Evidence? {
        guard let summary = await underlying.situate(ticker, timeout: timeout) else { return nil }
        var facts: [String: JSONValue] = [:]
        var parts: [String] = []
        if let posture = summary.posture {
            facts["stance"] = .string(posture.stance)
            var text = "Situate \(posture.stance.replacingOccurrences(of: "_", with: " "))"
            if let horizon = posture.horizon {
                facts["horizon"] = .string(horizon)
                text += " over \(horizon)"
            }
            if let conviction = posture.conviction, conviction.isFinite {
                facts["conviction"] = .number(round3(conviction))
                text += " (conviction \(EvidenceText.number(conviction)))"
            }
            parts.append(text)
        }
        if let line = summary.posture?.oneLine ?? summary.oneLine {
            facts["one_line"] = .string(line)
            parts.append(line)
        }
        return Evidence(
            id: .situate, summary: parts.joined(separator: "; "),
            ref: underlying.url(UnderlyingClient.summaryPath(.situate, ticker)), facts: facts)
    }

    /// Ten headlines scored by materiality; only `material` ones count (≤ 6 titles, 140 characters each).
    func headlines(_ ticker: String, budget: Duration) async -> Evidence? {
        let started = ContinuousClock.now
        let news = await market.news(ticker, limit: 10)
        guard !news.items.isEmpty else { return nil }
        let left = budget - (ContinuousClock.now - started) - .milliseconds(100)
        guard left > .milliseconds(100) else { return nil }
        let tags = await materiality.score(
            news.items.map {
                HeadlineMateriality.Headline(
                    id: $0.url, ticker: ticker, title: $0.title, source: $0.source, publishedAt: $0.publishedAt)
            }, timeout: left)
        let material = zip(news.items, tags).filter { $0.1?.level == .material }.prefix(6).map {
            EvidenceText.clip($0.0.title, limit: 140)
        }
        guard !material.isEmpty else { return nil }
        return Evidence(
            id: .headlines, summary: "Material headlines: " + material.joined(separator: " | "),
            ref: "/v1/news?ticker=\(UnderlyingClient.segment(ticker))&materiality=material",
            facts: [
                "material_headlines": .array(material.map { .string($0) }),
                "headlines_scored": .number(Double(news.items.count)),
            ])
    }

    func peerForecast(_ ticker: String, timeout: Duration) async -> Evidence? {
        guard let forecast = await underlying.peerForecast(ticker, timeout: timeout), let bucket = forecast.bucket
        else {
            return nil
        }
        var facts: [String: JSONValue] = ["bucket": .string(bucket), "horizon_months": .number(3)]
        var summary = "Peer forecast (3 months): bucket \(bucket)"
        if let excess = forecast.expectedExcessReturn, excess.isFinite {
            facts["expected_excess_return"] = .number(round3(excess))
            summary += ", expected excess return \(EvidenceText.percent(excess))"
        }
        if let confidence = forecast.confidence, confidence.isFinite {
            facts["confidence"] = .number(round3(confidence))
            summary += ", confidence \(EvidenceText.number(confidence))"
        }
        if let probabilities = forecast.probabilities, !probabilities.isEmpty {
            facts["probabilities"] = .object(probabilities.mapValues { .number(round3($0)) })
        }
        return Evidence(
            id: .peerForecast, summary: summary,
            ref: underlying.url("/api/tabular/peer-forecast/\(UnderlyingClient.segment(ticker))"), facts: facts)
    }

    static func share(_ value: Double) -> String {
        let pct = value <= 1 ? value * 100 : value
        // An upstream figure: range-checked before it becomes an Int.
        guard let whole = pct.rounded().clampedInt(-1_000_000...1_000_000) else { return "n/a" }
        return "\(whole)%"
    }
}

/// Returns from three months of daily closes and the live price.
struct HistoryStats {
    let return1m: Double?
    let return3m: Double
    let belowHigh: Double

    init?(_ points: [HistoryPoint], price: Double) {
        guard let first = points.first, let last = points.last, first.close > 0, price > 0 else { return nil }
        return3m = price / first.close - 1
        let monthAgo = last.ts - 30 * 86_400
        let anchor = points.last { $0.ts <= monthAgo }
        return1m = anchor.map { price / $0.close - 1 }
        let high = max(points.map(\.close).max() ?? price, price)
        belowHigh = high > 0 ? 1 - price / high : 0
    }
}

func round2(_ v: Double) -> Double { (v * 100).rounded() / 100 }
