/// `GET /v1/news` wire types and headline materiality (docs/COMPATIBILITY.md#news).

/// `noise | minor | material`, in increasing order.
public enum MaterialityLevel: String, Codable, Sendable, CaseIterable {
    case noise, minor, material

    /// 0, 1, 2: the order used by `?materiality=` floors.
    public var rank: Int {
        switch self {
        case .noise: 0
        case .minor: 1
        case .material: 2
        }
    }

    /// The score position: noise 0, minor 0.5, material 1.
    public var position: Double { Double(rank) / 2 }

    /// `?materiality=` parsing: case-insensitive level name, anything else nil.
    public init?(query: String?) {
        guard let raw = query?.filter({ !$0.isWhitespace }).lowercased(), let level = Self(rawValue: raw)
        else { return nil }
        self = level
    }
}

/// Jev's reading of one headline: `{level, score ∈ [0,1], confidence ∈ [0.55,1]}` (3 dp).
public struct JevMateriality: Codable, Sendable, Equatable {
    public var level: MaterialityLevel
    public var score: Double
    public var confidence: Double

    public init(level: MaterialityLevel, score: Double, confidence: Double) {
        self.level = level
        self.score = score
        self.confidence = confidence
    }
}

/// A headline on the wire: `{title, url, source, publishedAt, jev_materiality?}`; the tag is absent (never null)
/// when unscored.
public struct NewsHeadline: Codable, Sendable, Equatable {
    public var title: String
    public var url: String
    public var source: String
    public var publishedAt: String
    public var jevMateriality: JevMateriality?

    enum CodingKeys: String, CodingKey {
        case title, url, source, publishedAt
        case jevMateriality = "jev_materiality"
    }

    public init(title: String, url: String, source: String, publishedAt: String, jevMateriality: JevMateriality? = nil)
    {
        self.title = title
        self.url = url
        self.source = source
        self.publishedAt = publishedAt
        self.jevMateriality = jevMateriality
    }
}

/// `{items, provider, ts, materiality}`; `materiality` echoes the floor, `null` when none was asked.
public struct NewsResponse: Codable, Sendable, Equatable {
    public var items: [NewsHeadline]
    /// `massive` on success, `error` when the news provider failed (items empty, still 200).
    public var provider: String
    public var ts: String
    public var materiality: MaterialityLevel?

    public init(items: [NewsHeadline], provider: String, ts: String, materiality: MaterialityLevel?) {
        self.items = items
        self.provider = provider
        self.ts = ts
        self.materiality = materiality
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(items, forKey: .items)
        try c.encode(provider, forKey: .provider)
        try c.encode(ts, forKey: .ts)
        if let materiality {
            try c.encode(materiality, forKey: .materiality)
        } else {
            try c.encodeNil(forKey: .materiality)
        }
    }

    enum CodingKeys: String, CodingKey { case items, provider, ts, materiality }
}

/// The command behind `GET /v1/news`; `ticker` upper-cased and non-empty, `limit` 1…25.
public struct NewsCommand: Codable, Sendable, Equatable {
    public static let name = "news.get.v1"
    public var ticker: String
    public var limit: Int
    public var materiality: MaterialityLevel?

    public init(ticker: String, limit: Int, materiality: MaterialityLevel?) {
        self.ticker = ticker
        self.limit = limit
        self.materiality = materiality
    }

    enum CodingKeys: String, CodingKey { case ticker, limit, materiality }

    /// `limit` is brought back into 1…25: a command may come from an outside producer.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        ticker = try c.decode(String.self, forKey: .ticker)
        limit = min(25, max(1, try c.decode(Int.self, forKey: .limit)))
        materiality = try c.decodeIfPresent(MaterialityLevel.self, forKey: .materiality)
    }
}
