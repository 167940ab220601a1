/// A domain event in the CloudEvents 1.0 JSON shape, so any Kafka consumer can read it.
/// `type` is `mapvest.<entity>.<verb>`, `source` is `/mapvest/<service>`; the Kafka key is the user or entity id.
public struct CloudEvent<Payload: Codable & Sendable>: Codable, Sendable {
    public var specversion: String
    public var id: String
    public var source: String
    public var type: String
    public var time: String
    public var datacontenttype: String
    /// The payload's schema version, e.g. `mapvest.identify.completed/1`.
    public var dataschema: String
    public var subject: String?
    public var data: Payload

    public init(
        id: String, source: String, type: String, time: String, schemaVersion: Int, subject: String?, data: Payload
    ) {
        self.specversion = "1.0"
        self.id = id
        self.source = source
        self.type = type
        self.time = time
        self.datacontenttype = "application/json"
        self.dataschema = "\(type)/\(schemaVersion)"
        self.subject = subject
        self.data = data
    }
}

/// `mapvest.identify.completed` (schema 1): which path answered and how long it took. No image, no email.
public struct IdentifyCompletedEvent: Codable, Sendable, Equatable {
    public static let type = "mapvest.identify.completed"
    public static let schemaVersion = 1
    /// `vision`, `ocr`, `hint` or `none`.
    public var path: String
    public var modelUsed: String
    public var latencyMs: Int
    public var detections: Int
    public var investables: Int
    public var publicInvestables: Int
    public var signedIn: Bool

    public init(
        path: String, modelUsed: String, latencyMs: Int, detections: Int, investables: Int, publicInvestables: Int,
        signedIn: Bool
    ) {
        self.path = path
        self.modelUsed = modelUsed
        self.latencyMs = latencyMs
        self.detections = detections
        self.investables = investables
        self.publicInvestables = publicInvestables
        self.signedIn = signedIn
    }
}

/// `mapvest.find.recorded` (schema 1): a find entered a user's journal. Nearby builds its seen/captured read model from
/// it, Briefs its finds read model (uncaught-nearby ownership, find evolution). `foundPrice` (the quote at catch time,
/// when one arrived) was added compatibly: older events simply lack it.
public struct FindRecordedEvent: Codable, Sendable, Equatable {
    public static let type = "mapvest.find.recorded"
    public static let schemaVersion = 1
    public var findId: String
    public var userId: String
    public var brand: String
    public var ticker: String?
    public var comparable: String?
    public var isPublic: Bool?
    public var geohash6: String?
    public var createdAt: String
    public var foundPrice: Double?

    public init(
        findId: String, userId: String, brand: String, ticker: String?, comparable: String?, isPublic: Bool?,
        geohash6: String?, createdAt: String, foundPrice: Double? = nil
    ) {
        self.findId = findId
        self.userId = userId
        self.brand = brand
        self.ticker = ticker
        self.comparable = comparable
        self.isPublic = isPublic
        self.geohash6 = geohash6
        self.createdAt = createdAt
        self.foundPrice = foundPrice
    }
}
