import Contracts
import Foundation

/// `GET /v1/environment/{sector}`: the macro and policy backdrop of a GICS sector. Cache-first like the pulse: the
/// gateway asks without `generate` first (a cached brief is free); only a miss the caller may pay for is generated.
public struct EnvironmentCommand: Codable, Sendable, Equatable {
    public static let name = "research.environment.get.v1"
    /// One of the 11 canonical GICS sector names.
    public var sector: String
    public var generate: Bool

    public init(sector: String, generate: Bool) {
        self.sector = sector
        self.generate = generate
    }
}

/// One FRED series as the brief read it: its latest observation.
public struct EnvironmentSeries: Codable, Sendable, Equatable {
    public var id: String
    public var label: String
    public var latest: Double
    public var unit: String?
    /// The observation's date, `YYYY-MM-DD`.
    public var asOf: String

    public init(id: String, label: String, latest: Double, unit: String?, asOf: String) {
        self.id = id
        self.label = label
        self.latest = latest
        self.unit = unit
        self.asOf = asOf
    }
}

/// The `200` body of `GET /v1/environment/{sector}`.
public struct EnvironmentBrief: Codable, Sendable, Equatable {
    public var sector: String
    public var headline: String
    /// Two or three markdown paragraphs.
    public var body: String
    public var tailwinds: [String]
    public var headwinds: [String]
    public var series: [EnvironmentSeries]
    public var generatedAt: String
    /// One FRED page per series, then the web hits the model read (at most 8).
    public var sources: [Source]

    public init(
        sector: String, headline: String, body: String, tailwinds: [String], headwinds: [String],
        series: [EnvironmentSeries], generatedAt: String, sources: [Source]
    ) {
        self.sector = sector
        self.headline = headline
        self.body = body
        self.tailwinds = tailwinds
        self.headwinds = headwinds
        self.series = series
        self.generatedAt = generatedAt
        self.sources = sources
    }

    /// One line for the rating's evidence: the headline and the series read.
    public var summary: String {
        let figures = series.map {
            "\($0.label) \(EnvironmentRules.figure($0.latest))\($0.unit.map { " \($0)" } ?? "") (\($0.asOf))"
        }
        return figures.isEmpty ? headline : "\(headline) — " + figures.joined(separator: "; ")
    }
}

/// The environment brief's rules: which series, which searches, the prompt and what a model's
/// answer must hold. No I/O.
public enum EnvironmentRules {
    /// A FRED series the brief reads.
    public struct SeriesSpec: Sendable, Equatable {
        public var id: String
        public var label: String
        public var unit: String?
    }

    /// A web hit the model may cite.
    public struct WebHit: Sendable, Equatable {
        public var title: String
        public var url: String
        public var snippet: String

        public init(title: String, url: String, snippet: String) {
            self.title = title
            self.url = url
            self.snippet = snippet
        }
    }

    /// The model's answer after validation.
    public struct Written: Sendable, Equatable {
        public var headline: String
        public var body: String
        public var tailwinds: [String]
        public var headwinds: [String]
    }

    public static let models = ["anthropic/claude-opus-4.8", "openai/gpt-5.6-terra", "x-ai/grok-4.6"]
    public static let maxSources = 8

    static let base = [
        SeriesSpec(id: "DFF", label: "Federal funds effective rate", unit: "percent"),
        SeriesSpec(id: "CPIAUCSL", label: "CPI, all items", unit: "index 1982-84=100"),
    ]
    static let extra: [String: SeriesSpec] = [
        "Information Technology": SeriesSpec(
            id: "IPG3344S", label: "Industrial production: semiconductors and electronic components", unit: "index"),
        "Consumer Discretionary": SeriesSpec(id: "UMCSENT", label: "Consumer sentiment (Michigan)", unit: "index"),
        "Consumer Staples": SeriesSpec(id: "CPIUFDSL", label: "CPI, food", unit: "index"),
        "Energy": SeriesSpec(id: "DCOILWTICO", label: "WTI crude oil", unit: "dollars per barrel"),
        "Financials": SeriesSpec(id: "T10Y2Y", label: "10-year minus 2-year Treasury spread", unit: "percent"),
        "Health Care": SeriesSpec(id: "CPIMEDSL", label: "CPI, medical care", unit: "index"),
        "Industrials": SeriesSpec(id: "INDPRO", label: "Industrial production", unit: "index"),
        "Materials": SeriesSpec(id: "PPIACO", label: "Producer prices, all commodities", unit: "index"),
        "Real Estate": SeriesSpec(id: "MORTGAGE30US", label: "30-year fixed mortgage rate", unit: "percent"),
        "Utilities": SeriesSpec(id: "CPIENGSL", label: "CPI, energy", unit: "index"),
    ]

    /// The series for a canonical sector: the two base series, then the sector's own (none for Communication
    /// Services).
    public static func series(_ sector: String) -> [SeriesSpec] {
        base + (extra[sector].map { [$0] } ?? [])
    }

    /// The two web searches (policy, then demand) for `year`.
    public static func queries(_ sector: String, year: Int) -> [String] {
        [
            "\(sector) sector policy regulation tariffs legislation outlook \(year - 1) \(year)",
            "\(sector) sector demand spending capex order backlog trend \(year - 1) \(year)",
        ]
    }

    /// The FRED page a series is cited by.
    public static func seriesURL(_ id: String) -> String { "https://fred.stlouisfed.org/series/\(id)" }

    public static let system = """
        You write short, sourced macro briefs for investors about one GICS sector. Use only the numbers and web \
        excerpts supplied; never invent a figure, a price target or advice. When no series or no excerpts are \
        supplied, say so plainly. Answer JSON only: {"headline": "<= 12 words", "body": "2-3 markdown paragraphs", \
        "tailwinds": ["2-4 short bullets"], "headwinds": ["2-4 short bullets"]}.
        """

    /// The user message: the sector, the series read and the web excerpts.
    public static func prompt(_ sector: String, series: [EnvironmentSeries], web: [WebHit]) -> String {
        var lines = ["Sector: \(sector)", "", "Macro series (FRED, latest observation):"]
        lines +=
            series.isEmpty
            ? ["(none available)"]
            : series.map {
                "- \($0.id) \($0.label): \(figure($0.latest))\($0.unit.map { " \($0)" } ?? "") as of \($0.asOf)"
            }
        lines += ["", "Web excerpts:"]
        lines += web.isEmpty ? ["(none available)"] : web.map { "- \($0.title) (\($0.url)): \($0.snippet)" }
        return lines.joined(separator: "\n")
    }

    /// The model's answer, or nil when the headline or body is missing (the next model is asked). Bullets lose a
    /// leading `-`, `•` or `*`; at most 4 of each are kept.
    public static func written(_ answer: [String: JSONValue]) -> Written? {
        func text(_ key: String) -> String? {
            guard case .string(let s)? = answer[key] else { return nil }
            let trimmed = s.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? nil : trimmed
        }
        func bullets(_ key: String) -> [String] {
            guard case .array(let items)? = answer[key] else { return [] }
            let cleaned = items.compactMap { item -> String? in
                guard case .string(let s) = item else { return nil }
                let bare = s.trimmingCharacters(in: .whitespacesAndNewlines)
                    .drop { "-•*".contains($0) || $0.isWhitespace }
                return bare.isEmpty ? nil : String(bare)
            }
            return Array(cleaned.prefix(4))
        }
        guard let headline = text("headline"), let body = text("body") else { return nil }
        return Written(headline: headline, body: body, tailwinds: bullets("tailwinds"), headwinds: bullets("headwinds"))
    }

    /// The brief's sources: one FRED page per series, then the web hits, at most 8.
    public static func sources(series: [EnvironmentSeries], web: [WebHit], fetchedAt: String) -> [Source] {
        let fred = series.map {
            Source(provider: .fred, url: seriesURL($0.id), fetchedAt: fetchedAt, confidence: .high)
        }
        let hits = web.map { Source(provider: .exa, url: $0.url, fetchedAt: fetchedAt, confidence: .medium) }
        return Array((fred + hits).prefix(maxSources))
    }

    /// The latest usable observation of a FRED `series/observations` page (`sort_order=desc`): rows whose value is
    /// `"."` (missing) or not a finite number are skipped.
    public static func latest(_ observations: [(date: String, value: String)]) -> (date: String, value: Double)? {
        for row in observations {
            guard let value = Double(row.value), value.isFinite else { continue }
            return (row.date, value)
        }
        return nil
    }

    static func figure(_ value: Double) -> String {
        abs(value) >= 100 ? String(format: "%.1f", value) : String(format: "%.2f", value)
    }
}
