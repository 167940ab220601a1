/// Shared primitive wire types (docs/COMPATIBILITY.md#primitives). Optional fields are omitted from JSON, never null.

/// `high | medium | low`.
public enum Confidence: String, Codable, Sendable, CaseIterable {
    case high, medium, low
}

/// Where a fact came from. `provider` ∈ exa, openrouter, gemini, massive, yahoo, polygon, sec, fred, manual.
public struct Source: Codable, Sendable, Equatable {
    public enum Provider: String, Codable, Sendable {
        case exa, openrouter, gemini, massive, yahoo, polygon, sec, fred, manual
    }
    public var provider: Provider
    public var url: String?
    /// ISO-8601 time the fact was fetched.
    public var fetchedAt: String
    public var confidence: Confidence

    public init(provider: Provider, url: String? = nil, fetchedAt: String, confidence: Confidence) {
        self.provider = provider
        self.url = url
        self.fetchedAt = fetchedAt
        self.confidence = confidence
    }
}

/// A point on Earth; `lat` ∈ [-90, 90], `lng` ∈ [-180, 180].
public struct LatLng: Codable, Sendable, Equatable {
    public var lat: Double
    public var lng: Double

    public init(lat: Double, lng: Double) {
        self.lat = lat
        self.lng = lng
    }

    /// Nil unless both are finite and in range.
    public static func validated(lat: Double?, lng: Double?) -> LatLng? {
        guard let lat, let lng, lat.isFinite, lng.isFinite, (-90...90).contains(lat), (-180...180).contains(lng)
        else { return nil }
        return LatLng(lat: lat, lng: lng)
    }
}

public struct Ticker: Codable, Sendable, Equatable {
    public var symbol: String
    public var exchange: String?
    public var parent: String?

    public init(symbol: String, exchange: String? = nil, parent: String? = nil) {
        self.symbol = symbol
        self.exchange = exchange
        self.parent = parent
    }
}

public struct Brand: Codable, Sendable, Equatable {
    public var name: String
    public var parent: String?
    public var isPublic: Bool
    public var ticker: Ticker?
    public var sector: String?
    public var logo: String?

    public init(
        name: String, parent: String? = nil, isPublic: Bool, ticker: Ticker? = nil, sector: String? = nil,
        logo: String? = nil
    ) {
        self.name = name
        self.parent = parent
        self.isPublic = isPublic
        self.ticker = ticker
        self.sector = sector
        self.logo = logo
    }
}

/// An ETF holding the brand's sector or company. `weight` is 0 when unknown.
public struct EtfExposure: Codable, Sendable, Equatable {
    public var ticker: String
    public var name: String
    public var weight: Double
    public var source: Source

    public init(ticker: String, name: String, weight: Double, source: Source) {
        self.ticker = ticker
        self.name = name
        self.weight = weight
        self.source = source
    }
}

/// The closest public company to a private brand.
public struct Comparable: Codable, Sendable, Equatable {
    public var ticker: String
    public var name: String
    public var score: Double
    public var reasoning: String
    public var sources: [Source]

    public init(ticker: String, name: String, score: Double, reasoning: String, sources: [Source]) {
        self.ticker = ticker
        self.name = name
        self.score = score
        self.reasoning = reasoning
        self.sources = sources
    }
}

public struct Quote: Codable, Sendable, Equatable {
    public var symbol: String
    public var price: Double
    public var change: Double
    public var changePct: Double
    public var currency: String
    public var ts: String
    public var disclaimer: String
    public var name: String?
    /// `massive | yahoo`.
    public var provider: String?
    /// `real-time | delayed | end-of-day | unknown`.
    public var freshness: String?

    public init(
        symbol: String, price: Double, change: Double, changePct: Double, currency: String, ts: String,
        disclaimer: String, name: String? = nil, provider: String? = nil, freshness: String? = nil
    ) {
        self.symbol = symbol
        self.price = price
        self.change = change
        self.changePct = changePct
        self.currency = currency
        self.ts = ts
        self.disclaimer = disclaimer
        self.name = name
        self.provider = provider
        self.freshness = freshness
    }
}

/// Rarity tier of a find (docs/COMPATIBILITY.md#rarity). `uncommon` is reserved and never produced.
public enum DexRarity: String, Codable, Sendable, CaseIterable {
    case common, uncommon, rare, legendary
}

/// The flat error body every route uses: `{"error": "<message>"}`.
public struct ErrorBody: Codable, Sendable, Equatable {
    public var error: String
    public init(_ error: String) { self.error = error }
}
