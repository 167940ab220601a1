/// Local Economy Brief wire types (docs/COMPATIBILITY.md#local-brief): the HTTP bodies and the gateway's commands to
/// Briefs.

/// Where a brief is: every field optional, absent fields omitted.
public struct LocalBriefPlace: Codable, Sendable, Equatable {
    public var neighborhood: String?
    public var city: String?
    public var state: String?
    public var zip: String?

    public init(neighborhood: String? = nil, city: String? = nil, state: String? = nil, zip: String? = nil) {
        self.neighborhood = neighborhood
        self.city = city
        self.state = state
        self.zip = zip
    }

    /// The most specific name: neighbourhood, else city, else state.
    public var label: String? { neighborhood ?? city ?? state }
}

/// `{paragraphs (3–4), place, nearbyCount, generatedAt}`; never names a model or provider.
public struct LocalBrief: Codable, Sendable, Equatable {
    public var paragraphs: [String]
    public var place: LocalBriefPlace
    public var nearbyCount: Int
    public var generatedAt: String

    public init(paragraphs: [String], place: LocalBriefPlace, nearbyCount: Int, generatedAt: String) {
        self.paragraphs = paragraphs
        self.place = place
        self.nearbyCount = nearbyCount
        self.generatedAt = generatedAt
    }
}

public enum LocalBriefCommandName {
    public static let brief = "local_brief.generate.v1"
    public static let save = "local_brief.save.v1"
    public static let saved = "local_brief.saved.v1"
    public static let delete = "local_brief.delete.v1"
}

/// `POST /v1/local-brief`: finite coordinates and the place fields the client already knows.
public struct LocalBriefCommand: Codable, Sendable, Equatable {
    public var userId: String
    public var lat: Double
    public var lng: Double
    public var place: LocalBriefPlace

    public init(userId: String, lat: Double, lng: Double, place: LocalBriefPlace) {
        self.userId = userId
        self.lat = lat
        self.lng = lng
        self.place = place
    }
}

/// `POST /v1/local-brief/save`, validated by the gateway.
public struct SaveLocalBriefCommand: Codable, Sendable, Equatable {
    public var userId: String
    public var label: String
    public var lat: Double
    public var lng: Double
    public var brief: String
    public var place: LocalBriefPlace

    public init(userId: String, label: String, lat: Double, lng: Double, brief: String, place: LocalBriefPlace) {
        self.userId = userId
        self.label = label
        self.lat = lat
        self.lng = lng
        self.brief = brief
        self.place = place
    }
}

/// `GET /v1/local-brief/saved` (`id` nil) and `DELETE /v1/local-brief/saved/:id`.
public struct SavedLocalBriefCommand: Codable, Sendable, Equatable {
    public var userId: String
    public var id: String?
    public init(userId: String, id: String? = nil) {
        self.userId = userId
        self.id = id
    }
}

/// One saved brief: `{id, label, lat, lng, city?, state?, zip?, brief, createdAt}`.
public struct SavedLocalBrief: Codable, Sendable, Equatable {
    public var id: String
    public var label: String
    public var lat: Double
    public var lng: Double
    public var city: String?
    public var state: String?
    public var zip: String?
    public var brief: String
    public var createdAt: String

    public init(
        id: String, label: String, lat: Double, lng: Double, city: String?, state: String?, zip: String?, brief: String,
        createdAt: String
    ) {
        self.id = id
        self.label = label
        self.lat = lat
        self.lng = lng
        self.city = city
        self.state = state
        self.zip = zip
        self.brief = brief
        self.createdAt = createdAt
    }
}

public struct SavedLocalBriefsResponse: Codable, Sendable, Equatable {
    public var items: [SavedLocalBrief]
    public init(items: [SavedLocalBrief]) { self.items = items }
}

public struct SavedLocalBriefId: Codable, Sendable, Equatable {
    public var id: String
    public init(id: String) { self.id = id }
}
