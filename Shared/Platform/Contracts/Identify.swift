/// `POST /v1/identify` wire types (docs/COMPATIBILITY.md#identify-response).

public struct Detection: Codable, Sendable, Equatable {
    public var brand: String?
    public var product: String?
    public var sector: String?
    public var confidence: Confidence

    public init(brand: String? = nil, product: String? = nil, sector: String? = nil, confidence: Confidence) {
        self.brand = brand
        self.product = product
        self.sector = sector
        self.confidence = confidence
    }
}

public struct Identification: Codable, Sendable, Equatable {
    public var visibleText: [String]
    public var detected: [Detection]
    public var location: LatLng?
    /// Which path answered: a vision model id, `ocr:tesseract`, `hint:seed`, or `none`.
    public var modelUsed: String

    public init(visibleText: [String], detected: [Detection], location: LatLng?, modelUsed: String) {
        self.visibleText = visibleText
        self.detected = detected
        self.location = location
        self.modelUsed = modelUsed
    }
}

/// `{exposure, probability, worth_a_look, watchlisted?}`; absent (never null) when unscored.
public struct InvestableVerdict: Codable, Sendable, Equatable {
    public enum Exposure: String, Codable, Sendable { case direct, parent, proxy, none }
    public var exposure: Exposure
    public var probability: Double
    public var worthALook: Double
    public var watchlisted: Bool?

    enum CodingKeys: String, CodingKey {
        case exposure, probability, watchlisted
        case worthALook = "worth_a_look"
    }

    public init(exposure: Exposure, probability: Double, worthALook: Double, watchlisted: Bool? = nil) {
        self.exposure = exposure
        self.probability = probability
        self.worthALook = worthALook
        self.watchlisted = watchlisted
    }
}

public struct Investable: Codable, Sendable, Equatable {
    public var brand: Brand
    public var comparables: [Comparable]
    public var etfs: [EtfExposure]
    public var confidence: Confidence
    public var sources: [Source]
    public var quote: Quote?
    public var rarity: DexRarity?
    public var verdict: InvestableVerdict?

    public init(
        brand: Brand, comparables: [Comparable] = [], etfs: [EtfExposure] = [], confidence: Confidence,
        sources: [Source], quote: Quote? = nil, rarity: DexRarity? = nil, verdict: InvestableVerdict? = nil
    ) {
        self.brand = brand
        self.comparables = comparables
        self.etfs = etfs
        self.confidence = confidence
        self.sources = sources
        self.quote = quote
        self.rarity = rarity
        self.verdict = verdict
    }
}

public struct IdentifyResponse: Codable, Sendable, Equatable {
    public var identification: Identification
    public var investables: [Investable]

    public init(identification: Identification, investables: [Investable]) {
        self.identification = identification
        self.investables = investables
    }
}

/// The command the gateway sends to Identify for `POST /v1/identify`. The photo travels by claim check:
/// its bytes sit in Redis under `photoKey` and never ride on Kafka.
public struct IdentifyPhotoCommand: Codable, Sendable, Equatable {
    public static let name = "identify.photo.v1"
    /// Every `photoKey` starts with this; Identify reads and deletes no other key.
    public static let photoKeyPrefix = "mapvest:photo:"

    /// Redis key of the photo bytes (claim check).
    public var photoKey: String
    public var photoContentType: String
    public var photoBytes: Int
    public var hint: String?
    public var location: LatLng?
    /// Region of interest, values in [0, 1] (accepted, not used for cropping).
    public var roi: [String: Double]?
    /// The signed-in user, if any (verified by the gateway).
    public var userId: String?
    public var deviceId: String?

    public init(
        photoKey: String, photoContentType: String, photoBytes: Int, hint: String?, location: LatLng?,
        roi: [String: Double]?, userId: String?, deviceId: String?
    ) {
        self.photoKey = photoKey
        self.photoContentType = photoContentType
        self.photoBytes = photoBytes
        self.hint = hint
        self.location = location
        self.roi = roi
        self.userId = userId
        self.deviceId = deviceId
    }
}

/// `POST /v1/resolve-comparable` body, and the command Identify answers it with.
public struct ResolveComparableCommand: Codable, Sendable, Equatable {
    public static let name = "identify.resolve-comparable.v1"
    public var brand: String
    public var hintSector: String?

    public init(brand: String, hintSector: String?) {
        self.brand = brand
        self.hintSector = hintSector
    }
}

public struct ResolveComparableResponse: Codable, Sendable, Equatable {
    public var brand: Brand
    public var comparables: [Comparable]
    public var etfs: [EtfExposure]

    public init(brand: Brand, comparables: [Comparable], etfs: [EtfExposure]) {
        self.brand = brand
        self.comparables = comparables
        self.etfs = etfs
    }
}

/// What a finished identify leaves behind, computed with its answer: the find to record for a signed-in caller
/// (with its `mapvest.find.recorded` event), the `identify_done` push request, and the `identify.completed` event.
/// Identify applies it after the reply; when that fails it publishes this command to `Topics.identifyEffects` (key:
/// the user, device or photo key) and applies it from there, retrying until it succeeds, so the find outlives an
/// outage without the photo and without running the pipeline again. Every part is idempotent.
public struct IdentifyEffectsCommand: Codable, Sendable, Equatable {
    public static let name = "identify.effects.v1"

    public var userId: String?
    public var find: RecordFindInput?
    public var push: PushRequest?
    /// The Kafka key of the `identify.completed` event.
    public var eventKey: String
    public var completed: IdentifyCompletedEvent
    /// Names the find's progression awards in Identify's ledger: the identify command's delivery (its request id),
    /// so a redelivered identify or effects command awards nothing twice. Absent in commands from before it existed.
    public var awardKey: String?

    public init(
        userId: String?, find: RecordFindInput?, push: PushRequest?, eventKey: String,
        completed: IdentifyCompletedEvent,
        awardKey: String? = nil
    ) {
        self.userId = userId
        self.find = find
        self.push = push
        self.eventKey = eventKey
        self.completed = completed
        self.awardKey = awardKey
    }
}
