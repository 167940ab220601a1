import Contracts
import Foundation

/// `GET /v1/pulse/{ticker}`: is the money upstream of a company growing. Cache-first like the graph: the gateway asks
/// without `generate` first (a cached pulse is free); only a miss the caller may pay for is asked with `generate`.
public struct PulseCommand: Codable, Sendable, Equatable {
    public static let name = "research.pulse.get.v1"
    /// `^[A-Z][A-Z0-9.]{0,5}$`.
    public var ticker: String
    public var generate: Bool

    public init(ticker: String, generate: Bool) {
        self.ticker = ticker
        self.generate = generate
    }
}

/// One buyer of the subject (a `buys_from` counterparty with a ticker). `weight` is its normalized share of the
/// pulse, 0 when its statements did not resolve; a YoY figure it lacks is omitted, never zero-filled.
public struct DemandPulseBuyer: Codable, Sendable, Equatable {
    public var ticker: String
    public var name: String?
    /// Percent, latest period against the one a year earlier.
    public var revenueYoY: Double?
    /// Percent, latest period against the one a year earlier (capex as a positive magnitude).
    public var capexYoY: Double?
    /// In [0, 1].
    public var weight: Double

    public init(ticker: String, name: String?, revenueYoY: Double?, capexYoY: Double?, weight: Double) {
        self.ticker = ticker
        self.name = name
        self.revenueYoY = revenueYoY
        self.capexYoY = capexYoY
        self.weight = weight
    }
}

/// The `200` body of `GET /v1/pulse/{ticker}`. `pulse` is always present (JSON `null` when no buyer resolved).
public struct DemandPulse: Codable, Sendable, Equatable {
    public var ticker: String
    public var buyers: [DemandPulseBuyer]
    public var pulse: Double?
    /// `expanding | contracting | mixed | unknown`.
    public var interpretation: String
    public var generatedAt: String
    /// The statement requests that answered rows (at most 12, deduped by URL).
    public var sources: [Source]

    public init(
        ticker: String, buyers: [DemandPulseBuyer], pulse: Double?, interpretation: String, generatedAt: String,
        sources: [Source]
    ) {
        self.ticker = ticker
        self.buyers = buyers
        self.pulse = pulse
        self.interpretation = interpretation
        self.generatedAt = generatedAt
        self.sources = sources
    }

    enum CodingKeys: String, CodingKey { case ticker, buyers, pulse, interpretation, generatedAt, sources }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(ticker, forKey: .ticker)
        try c.encode(buyers, forKey: .buyers)
        if let pulse { try c.encode(pulse, forKey: .pulse) } else { try c.encodeNil(forKey: .pulse) }
        try c.encode(interpretation, forKey: .interpretation)
        try c.encode(generatedAt, forKey: .generatedAt)
        try c.encode(sources, forKey: .sources)
    }

    /// One sentence for the rating's evidence (docs/COMPATIBILITY.md#rating-evidence).
    public var summary: String {
        guard let pulse else {
            return buyers.isEmpty
                ? "Demand pulse unknown: no listed buyers in the stored value chain."
                : "Demand pulse unknown: no buyer's statements resolved (\(buyers.map(\.ticker).joined(separator: ", ")))."
        }
        let named = buyers.filter { $0.weight > 0 }.map { buyer in
            let parts = [
                buyer.revenueYoY.map { "revenue \(DemandPulseMath.percent($0))" },
                buyer.capexYoY.map { "capex \(DemandPulseMath.percent($0))" },
            ].compactMap { $0 }
            return "\(buyer.ticker) (\(parts.joined(separator: ", ")))"
        }
        return "Demand pulse \(DemandPulseMath.percent(pulse)) YoY across buyers, \(interpretation): "
            + named.joined(separator: "; ")
    }
}

/// One statement period of a buyer: its end date (`YYYY-MM-DD`) and the value read (revenue or capex).
public struct PeriodValue: Sendable, Equatable {
    public var fiscalDate: String
    public var value: Double

    public init(fiscalDate: String, value: Double) {
        self.fiscalDate = fiscalDate
        self.value = value
    }
}

/// A buyer's resolved statements: revenue points (income statements) and capex points (cash-flow statements).
public struct BuyerStatements: Sendable, Equatable {
    public var revenue: [PeriodValue]
    public var capex: [PeriodValue]

    public init(revenue: [PeriodValue], capex: [PeriodValue]) {
        self.revenue = revenue
        self.capex = capex
    }
}

/// The pulse arithmetic: no I/O.
public enum DemandPulseMath {
    /// Buyers looked at per pulse.
    public static let maxBuyers = 6
    /// Statements asked per buyer and family.
    public static let statementLimit = 8
    public static let maxSources = 12
    static let expanding = 3.0
    static let contracting = -3.0

    /// Unique `buys_from` counterparties that carry a ticker (the heaviest edge per ticker), heaviest first, at most
    /// `maxBuyers`.
    public static func buyers(_ edges: [CompanyEdge]) -> [CompanyEdge] {
        var best: [String: CompanyEdge] = [:]
        var order: [String] = []
        for edge in edges where edge.edgeType == "buys_from" {
            guard let ticker = edge.dstTicker?.trimmingCharacters(in: .whitespaces).uppercased(), !ticker.isEmpty
            else { continue }
            if let known = best[ticker] {
                if edge.weight > known.weight { best[ticker] = edge }
            } else {
                best[ticker] = edge
                order.append(ticker)
            }
        }
        let unique = order.compactMap { best[$0] }
        let sorted = unique.enumerated().sorted { a, b in
            a.element.weight != b.element.weight ? a.element.weight > b.element.weight : a.offset < b.offset
        }
        return Array(sorted.map(\.element).prefix(maxBuyers))
    }

    /// Percent change from the newest point to the most recent earlier one 300–430 days before it; nil when there
    /// is none or its value is not positive.
    public static func yoy(_ points: [PeriodValue]) -> Double? {
        let usable = points.filter { $0.value.isFinite && day($0.fiscalDate) != nil }
            .sorted { $0.fiscalDate > $1.fiscalDate }
        guard let latest = usable.first, let latestDay = day(latest.fiscalDate) else { return nil }
        for prior in usable.dropFirst() {
            guard let priorDay = day(prior.fiscalDate) else { continue }
            let gap = latestDay - priorDay
            guard gap >= 300, gap <= 430 else { continue }
            guard prior.value > 0 else { return nil }
            return (latest.value - prior.value) / prior.value * 100
        }
        return nil
    }

    /// The pulse of `candidates` (already from `buyers`) given each resolved buyer's statements (keyed by upper-case
    /// ticker; absent = not resolved).
    public static func compute(
        ticker: String, candidates: [CompanyEdge], statements: [String: BuyerStatements], sources: [Source],
        generatedAt: String
    ) -> DemandPulse {
        var buyers: [DemandPulseBuyer] = []
        var resolved: [(index: Int, weight: Double, signal: Double)] = []
        for edge in candidates {
            let t = (edge.dstTicker ?? "").trimmingCharacters(in: .whitespaces).uppercased()
            let found = statements[t]
            let revenue = found.flatMap { yoy($0.revenue) }
            let capex = found.flatMap { yoy($0.capex) }
            let parts = [revenue, capex].compactMap { $0 }
            if !parts.isEmpty {
                resolved.append((buyers.count, edge.weight, parts.reduce(0, +) / Double(parts.count)))
            }
            buyers.append(
                DemandPulseBuyer(ticker: t, name: edge.dstName, revenueYoY: revenue, capexYoY: capex, weight: 0))
        }
        var seen: Set<String> = []
        let cited = Array(
            sources.filter { seen.insert($0.url ?? "\($0.provider.rawValue)").inserted }.prefix(maxSources))
        guard !resolved.isEmpty else {
            return DemandPulse(
                ticker: ticker, buyers: buyers, pulse: nil, interpretation: "unknown", generatedAt: generatedAt,
                sources: cited)
        }
        let total = resolved.reduce(0) { $0 + $1.weight }
        var pulse = 0.0
        for r in resolved {
            let weight = total > 0 ? r.weight / total : 1 / Double(resolved.count)
            buyers[r.index].weight = min(1, max(0, weight))
            pulse += weight * r.signal
        }
        let reading = pulse > expanding ? "expanding" : pulse < contracting ? "contracting" : "mixed"
        return DemandPulse(
            ticker: ticker, buyers: buyers, pulse: pulse, interpretation: reading, generatedAt: generatedAt,
            sources: cited)
    }

    /// `+4.2%` / `-1.0%`.
    static func percent(_ value: Double) -> String {
        (value >= 0 ? "+" : "") + String(format: "%.1f%%", value)
    }

    /// Days since 1970 of a `YYYY-MM-DD…` date, or nil.
    static func day(_ iso: String) -> Int? {
        let parts = iso.prefix(10).split(separator: "-")
        guard parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
            (1...12).contains(m), (1...31).contains(d), (1...9999).contains(y)
        else { return nil }
        // Days from civil (Howard Hinnant's algorithm).
        let yy = m <= 2 ? y - 1 : y
        let era = (yy >= 0 ? yy : yy - 399) / 400
        let yoe = yy - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
