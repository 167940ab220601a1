import Contracts

/// `GET /v1/graph/{ticker}`: the company's value chain, cache-first. The gateway asks without `generate` first (a
/// fresh or stale stored graph is free); only a miss the caller may pay for is asked again with `generate`.
public struct GraphCommand: Codable, Sendable, Equatable {
    public static let name = "research.graph.get.v1"
    /// `^[A-Z][A-Z0-9.]{0,5}$`.
    public var ticker: String
    public var generate: Bool

    public init(ticker: String, generate: Bool) {
        self.ticker = ticker
        self.generate = generate
    }
}

/// One counterparty of the subject. The relation points from the counterparty toward the subject: `supplies` (it
/// sells to the subject), `buys_from` (it is a customer), `competes_with`, `complements`.
public struct CompanyEdge: Codable, Sendable, Equatable {
    public var id: String
    public var srcTicker: String
    public var dstTicker: String?
    public var dstName: String
    public var edgeType: String
    /// In [0, 1].
    public var weight: Double
    public var reasoning: String
    public var sources: [Source]
    public var asOf: String?
    /// ISO-8601; one value for the whole stored set.
    public var createdAt: String

    public init(
        id: String, srcTicker: String, dstTicker: String?, dstName: String, edgeType: String, weight: Double,
        reasoning: String, sources: [Source], asOf: String?, createdAt: String
    ) {
        self.id = id
        self.srcTicker = srcTicker
        self.dstTicker = dstTicker
        self.dstName = dstName
        self.edgeType = edgeType
        self.weight = weight
        self.reasoning = reasoning
        self.sources = sources
        self.asOf = asOf
        self.createdAt = createdAt
    }
}

/// The `200` body: the stored edges, when they were made (else now) and their sources (at most 10, deduped).
public struct CompanyGraphResponse: Codable, Sendable, Equatable {
    public var ticker: String
    public var edges: [CompanyEdge]
    public var count: Int
    public var generatedAt: String
    public var sources: [Source]

    public init(ticker: String, edges: [CompanyEdge], now: String) {
        self.ticker = ticker
        self.edges = edges
        count = edges.count
        generatedAt = edges.map(\.createdAt).max() ?? now
        var seen: Set<String> = []
        sources = edges.flatMap(\.sources).filter {
            seen.insert($0.url ?? "\($0.provider.rawValue):\($0.confidence.rawValue)").inserted
        }
        sources = Array(sources.prefix(10))
    }
}
