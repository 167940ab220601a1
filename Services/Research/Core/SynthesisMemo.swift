import Contracts
import Foundation

/// `POST /v1/memo/synthesis`: the memo that reads the layers together. Cache-first like the pulse: the gateway asks
/// without `generate` first (a cached memo is free); only a miss the caller may pay for is asked again with
/// `generate`.
public struct SynthesisCommand: Codable, Sendable, Equatable {
    public static let name = "research.synthesis.get.v1"
    /// `^[A-Z][A-Z0-9.]{0,5}$`.
    public var ticker: String
    public var generate: Bool

    public init(ticker: String, generate: Bool) {
        self.ticker = ticker
        self.generate = generate
    }
}

/// The `200` body of `POST /v1/memo/synthesis`: the memo, its answers to the three questions (absent when the model
/// gave none) and the layers' own citations.
public struct SynthesisMemo: Codable, Sendable, Equatable {
    public var ticker: String
    /// Three to five markdown paragraphs citing the layer facts they use.
    public var memo: String
    public var bindingConstraint: String?
    public var demandDurability: String?
    public var pricingPower: String?
    public var generatedAt: String
    /// The edges', pulse's, environment brief's and ratios' sources, deduped by URL, at most 12.
    public var sources: [Source]

    public init(
        ticker: String, memo: String, bindingConstraint: String?, demandDurability: String?, pricingPower: String?,
        generatedAt: String, sources: [Source]
    ) {
        self.ticker = ticker
        self.memo = memo
        self.bindingConstraint = bindingConstraint
        self.demandDurability = demandDurability
        self.pricingPower = pricingPower
        self.generatedAt = generatedAt
        self.sources = sources
    }

    /// One line for the rating's evidence (at most 300 characters): the binding constraint, else the memo's first
    /// paragraph.
    public var summary: String {
        let line =
            bindingConstraint.map { "Binding constraint: \($0)" }
            ?? memo.components(separatedBy: "\n\n").first ?? memo
        let flat = line.split(whereSeparator: \.isNewline).joined(separator: " ")
        return flat.count <= 300 ? flat : String(flat.prefix(299)) + "…"
    }
}

/// The synthesis memo's rules: the prompt over the four layers, what a model's answer must hold and
/// which sources the memo carries. No I/O.
public enum SynthesisRules {
    /// One financial ratio handed to the model.
    public struct Ratio: Sendable, Equatable {
        public var label: String
        public var value: Double

        public init(label: String, value: Double) {
            self.label = label
            self.value = value
        }
    }

    /// Every layer the prompt reads; nil (or empty) means the layer was not available.
    public struct Layers: Sendable, Equatable {
        public var ticker: String
        public var edges: [CompanyEdge]
        public var pulse: DemandPulse?
        public var environment: EnvironmentBrief?
        public var ratios: [Ratio]
        /// The ratio row's date, when given.
        public var ratiosDate: String?
        /// Where the ratios were read (nil when none were).
        public var ratiosSource: Source?

        public init(
            ticker: String, edges: [CompanyEdge], pulse: DemandPulse?, environment: EnvironmentBrief?,
            ratios: [Ratio], ratiosDate: String?, ratiosSource: Source?
        ) {
            self.ticker = ticker
            self.edges = Array(edges.prefix(SynthesisRules.maxEdges))
            self.pulse = pulse
            self.environment = environment
            self.ratios = ratios
            self.ratiosDate = ratiosDate
            self.ratiosSource = ratiosSource
        }
    }

    /// The model's answer after validation: the memo is required, the three answers are kept when non-empty.
    public struct Written: Sendable, Equatable {
        public var memo: String
        public var bindingConstraint: String?
        public var demandDurability: String?
        public var pricingPower: String?
    }

    public static let models = ["anthropic/claude-opus-4.8", "openai/gpt-5.6-terra", "x-ai/grok-4.6"]
    public static let maxEdges = 12
    public static let maxBuyers = 6
    public static let maxForces = 4
    public static let maxSources = 12

    public static let system = """
        You write the synthesis memo on one listed company for a private investor. You are given up to four layers \
        gathered beforehand: its value chain (suppliers, customers, rivals, complements), the demand pulse of its \
        customers (their revenue and capex trend), the macro and policy brief of its sector, and its latest \
        financial ratios. Read the layers together and answer three questions: (1) what binds this business now, \
        (2) how durable is the demand above it, (3) where in the chain pricing power sits: with the company, its \
        suppliers or its customers. Use only the layers given; never invent a counterparty, a figure, a rate or a \
        date. When a layer is empty or unavailable, say so in one clause and reason from the rest. No buy, sell or \
        hold advice, no price target, no share-price forecast; plain third person. Answer JSON only: \
        {"memo": "3-5 markdown paragraphs without headings, naming the layer facts used", \
        "bindingConstraint": "1-3 sentences", "demandDurability": "1-3 sentences", "pricingPower": "1-3 sentences"}.
        """

    /// The user message: each of the four layers, an unavailable one stated as such.
    public static func prompt(_ layers: Layers) -> String {
        [
            "Ticker: \(layers.ticker)",
            "",
            "LAYER 1 - Value chain (stored company graph):",
            edgesBlock(layers.edges),
            "",
            "LAYER 2 - Demand pulse (this company's customers):",
            pulseBlock(layers.pulse),
            "",
            "LAYER 3 - Environment (the sector's macro and policy field):",
            environmentBlock(layers.environment),
            "",
            "LAYER 4 - Financial ratios:",
            ratiosBlock(layers.ratios, date: layers.ratiosDate),
            "",
            "Write the synthesis memo for \(layers.ticker) from these layers only; name an empty layer as a gap.",
        ].joined(separator: "\n")
    }

    static func edgesBlock(_ edges: [CompanyEdge]) -> String {
        let groups = [
            ("supplies", "Suppliers (the company buys from them)"),
            ("buys_from", "Customers (they buy from the company)"),
            ("competes_with", "Competitors"), ("complements", "Complements"),
        ]
        let blocks = groups.compactMap { type, title -> String? in
            let rows = edges.filter { $0.edgeType == type }
            guard !rows.isEmpty else { return nil }
            return ([title + ":"] + rows.map(edgeLine)).joined(separator: "\n")
        }
        return blocks.isEmpty
            ? "(no value-chain graph is stored for this ticker: the graph is empty)"
            : blocks.joined(
                separator: "\n\n")
    }

    static func edgeLine(_ edge: CompanyEdge) -> String {
        let who = edge.dstTicker.map { "\(edge.dstName) (\($0))" } ?? "\(edge.dstName) (private)"
        var line = "- \(who), weight \(String(format: "%.2f", edge.weight))"
        if let asOf = edge.asOf { line += ", as of \(asOf)" }
        if !edge.reasoning.isEmpty { line += "\n  \(edge.reasoning)" }
        if let url = edge.sources.compactMap(\.url).first { line += "\n  (source: \(url))" }
        return line
    }

    static func pulseBlock(_ pulse: DemandPulse?) -> String {
        guard let pulse, pulse.pulse != nil || !pulse.buyers.isEmpty else {
            return "(no demand pulse available: the customers above this company did not resolve)"
        }
        let head =
            pulse.pulse.map {
                "Weighted customer trend: \(String(format: "%.1f", $0))% YoY (\(pulse.interpretation))"
            } ?? "Weighted customer trend: unavailable (\(pulse.interpretation))"
        let rows = pulse.buyers.prefix(maxBuyers).map { buyer -> String in
            let figures =
                [
                    buyer.revenueYoY.map { "revenue \(String(format: "%.1f", $0))% YoY" },
                    buyer.capexYoY.map { "capex \(String(format: "%.1f", $0))% YoY" },
                ].compactMap { $0 } + ["weight \(String(format: "%.2f", buyer.weight))"]
            let who = buyer.name.map { "\($0) (\(buyer.ticker))" } ?? buyer.ticker
            return "- \(who): " + figures.joined(separator: ", ")
        }
        return ([head] + rows).joined(separator: "\n")
    }

    static func environmentBlock(_ brief: EnvironmentBrief?) -> String {
        guard let brief else { return "(no environment brief available for this company's sector)" }
        var lines = ["Sector: \(brief.sector)", "Headline: \(brief.headline)", "Macro series:"]
        lines +=
            brief.series.isEmpty
            ? ["- (no macro series)"]
            : brief.series.map {
                "- \($0.label) (\($0.id)): \(EnvironmentRules.figure($0.latest))\($0.unit.map { " \($0)" } ?? "")"
                    + " as of \($0.asOf)"
            }
        if !brief.tailwinds.isEmpty { lines += ["Tailwinds:"] + brief.tailwinds.prefix(maxForces).map { "- \($0)" } }
        if !brief.headwinds.isEmpty { lines += ["Headwinds:"] + brief.headwinds.prefix(maxForces).map { "- \($0)" } }
        return lines.joined(separator: "\n")
    }

    static func ratiosBlock(_ ratios: [Ratio], date: String?) -> String {
        guard !ratios.isEmpty else { return "(no financial ratios available for this ticker)" }
        let rows = ratios.map { "- \($0.label): \(EnvironmentRules.figure($0.value))" }
        return ((date.map { ["As of \($0)"] } ?? []) + rows).joined(separator: "\n")
    }

    /// The model's answer, or nil when the memo is missing or empty (the next model is asked).
    public static func written(_ answer: [String: JSONValue]) -> Written? {
        func text(_ key: String) -> String? {
            guard case .string(let s)? = answer[key] else { return nil }
            let trimmed = s.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? nil : trimmed
        }
        guard let memo = text("memo") else { return nil }
        return Written(
            memo: memo, bindingConstraint: text("bindingConstraint"), demandDurability: text("demandDurability"),
            pricingPower: text("pricingPower"))
    }

    /// The memo's sources: the edges', the pulse's, the environment brief's, then the ratios', deduped by URL (a
    /// source without one by provider and confidence), at most 12. Nothing is cited that no layer read.
    public static func sources(_ layers: Layers) -> [Source] {
        let all =
            layers.edges.flatMap(\.sources) + (layers.pulse?.sources ?? []) + (layers.environment?.sources ?? [])
            + (layers.ratiosSource.map { [$0] } ?? [])
        var seen: Set<String> = []
        let unique = all.filter {
            seen.insert($0.url ?? "\($0.provider.rawValue):\($0.confidence.rawValue)").inserted
        }
        return Array(unique.prefix(maxSources))
    }
}
