/// Finds journal and dex wire types (docs/COMPATIBILITY.md#finds).

public struct Find: Codable, Sendable, Equatable {
    public var id: String
    public var brand: String
    public var ticker: String?
    public var isPublic: Bool?
    public var comparable: String?
    public var confidence: Confidence
    public var lat: Double?
    public var lng: Double?
    public var foundPrice: Double?
    public var createdAt: String
    public var rarity: DexRarity?

    public init(
        id: String, brand: String, ticker: String?, isPublic: Bool?, comparable: String?, confidence: Confidence,
        lat: Double?, lng: Double?, foundPrice: Double?, createdAt: String, rarity: DexRarity?
    ) {
        self.id = id
        self.brand = brand
        self.ticker = ticker
        self.isPublic = isPublic
        self.comparable = comparable
        self.confidence = confidence
        self.lat = lat
        self.lng = lng
        self.foundPrice = foundPrice
        self.createdAt = createdAt
        self.rarity = rarity
    }
}

public struct FindsResponse: Codable, Sendable, Equatable {
    public var finds: [Find]
    public var count: Int

    public init(finds: [Find]) {
        self.finds = finds
        self.count = finds.count
    }
}

/// One guest find to replay into the journal (`RecordFindInput`).
public struct RecordFindInput: Codable, Sendable, Equatable {
    public var brand: String
    public var ticker: String?
    public var isPublic: Bool?
    public var comparable: String?
    public var confidence: Confidence
    public var lat: Double?
    public var lng: Double?
    public var foundPrice: Double?
    /// The original catch time (ISO-8601), kept for new rows.
    public var createdAt: String?

    public init(
        brand: String, ticker: String? = nil, isPublic: Bool? = nil, comparable: String? = nil,
        confidence: Confidence, lat: Double? = nil, lng: Double? = nil, foundPrice: Double? = nil,
        createdAt: String? = nil
    ) {
        self.brand = brand
        self.ticker = ticker
        self.isPublic = isPublic
        self.comparable = comparable
        self.confidence = confidence
        self.lat = lat
        self.lng = lng
        self.foundPrice = foundPrice
        self.createdAt = createdAt
    }

    /// The contract's field rules; nil when valid, else the reason.
    public var validationError: String? {
        // Lengths in code points, as the document's maxLength counts them (not grapheme clusters).
        if !brand.contains(where: { !$0.isWhitespace }) || brand.unicodeScalars.count > 200 {
            return "brand must be 1-200 chars"
        }
        if let ticker, ticker.isEmpty || ticker.unicodeScalars.count > 32 { return "ticker must be 1-32 chars" }
        if let comparable, comparable.isEmpty || comparable.unicodeScalars.count > 32 {
            return "comparable must be 1-32 chars"
        }
        if let lat, !(lat.isFinite && (-90...90).contains(lat)) { return "lat out of range" }
        if let lng, !(lng.isFinite && (-180...180).contains(lng)) { return "lng out of range" }
        if let foundPrice, !foundPrice.isFinite { return "foundPrice must be finite" }
        if let createdAt, createdAt.isEmpty { return "createdAt must be non-empty" }
        return nil
    }
}

public struct RecordFindsRequest: Codable, Sendable, Equatable {
    public var finds: [RecordFindInput]
    public init(finds: [RecordFindInput]) { self.finds = finds }
}

public struct DexSector: Codable, Sendable, Equatable {
    public var sector: String
    public var found: Int
    public var total: Int

    public init(sector: String, found: Int, total: Int) {
        self.sector = sector
        self.found = found
        self.total = total
    }
}

public struct RarityCounts: Codable, Sendable, Equatable {
    public var common = 0
    public var uncommon = 0
    public var rare = 0
    public var legendary = 0
    public init() {}
}

public struct DexResponse: Codable, Sendable, Equatable {
    public var sectors: [DexSector]
    public var tilesVisited: Int
    public var totalFinds: Int
    public var rarityCounts: RarityCounts

    public init(sectors: [DexSector], tilesVisited: Int, totalFinds: Int, rarityCounts: RarityCounts) {
        self.sectors = sectors
        self.tilesVisited = tilesVisited
        self.totalFinds = totalFinds
        self.rarityCounts = rarityCounts
    }
}

/// Commands for the finds journal, sent by the gateway to Identify (the journal's owner).
public struct ListFindsCommand: Codable, Sendable, Equatable {
    public static let name = "finds.list.v1"
    public var userId: String
    public var limit: Int
    public init(userId: String, limit: Int) {
        self.userId = userId
        self.limit = limit
    }

    enum CodingKeys: String, CodingKey { case userId, limit }

    /// `limit` is brought back into 1…200: a command may come from an outside producer.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        userId = try c.decode(String.self, forKey: .userId)
        limit = min(200, max(1, try c.decode(Int.self, forKey: .limit)))
    }
}

public struct ReplayFindsCommand: Codable, Sendable, Equatable {
    public static let name = "finds.replay.v1"
    public var userId: String
    public var finds: [RecordFindInput]
    /// The client's `Idempotency-Key`: the same key and body get the same answer.
    public var idempotencyKey: String?
    public init(userId: String, finds: [RecordFindInput], idempotencyKey: String?) {
        self.userId = userId
        self.finds = finds
        self.idempotencyKey = idempotencyKey
    }
}

public struct DexCommand: Codable, Sendable, Equatable {
    public static let name = "dex.get.v1"
    public var userId: String
    public init(userId: String) { self.userId = userId }
}
