/// `POST /v1/search/intent` wire types (docs/COMPATIBILITY.md#search-intent).

/// `{q, lat?, lng?}`; `q` is trimmed and must hold 1…200 characters.
public struct SearchIntentRequest: Codable, Sendable, Equatable {
    public var q: String
    public var lat: Double?
    public var lng: Double?

    public init(q: String, lat: Double? = nil, lng: Double? = nil) {
        self.q = q
        self.lat = lat
        self.lng = lng
    }
}

/// `ticker | brand | place | question`.
public enum SearchIntentKind: String, Codable, Sendable, CaseIterable {
    case ticker, brand, place, question
}

/// `deterministic | jev | fallback`.
public enum SearchIntentMethod: String, Codable, Sendable {
    case deterministic, jev, fallback
}

/// What the query resolved to; every key optional (omitted when absent).
public struct SearchIntentResolved: Codable, Sendable, Equatable {
    public var symbol: String?
    public var brand: String?
    public var placeQuery: String?

    public init(symbol: String? = nil, brand: String? = nil, placeQuery: String? = nil) {
        self.symbol = symbol
        self.brand = brand
        self.placeQuery = placeQuery
    }
}

/// Where the app goes: `detail | map | research` with string parameters.
public struct SearchIntentRoute: Codable, Sendable, Equatable {
    public enum Screen: String, Codable, Sendable { case detail, map, research }
    public var screen: Screen
    public var params: [String: String]

    public init(screen: Screen, params: [String: String]) {
        self.screen = screen
        self.params = params
    }
}

public struct SearchIntentResponse: Codable, Sendable, Equatable {
    public var intent: SearchIntentKind
    public var probability: Double
    public var resolved: SearchIntentResolved
    public var route: SearchIntentRoute
    public var method: SearchIntentMethod

    public init(
        intent: SearchIntentKind, probability: Double, resolved: SearchIntentResolved, route: SearchIntentRoute,
        method: SearchIntentMethod
    ) {
        self.intent = intent
        self.probability = probability
        self.resolved = resolved
        self.route = route
        self.method = method
    }
}

/// The command behind `POST /v1/search/intent`; `q` is already whitespace-collapsed, trimmed and 1…200 characters,
/// `lat`/`lng` are finite or absent.
public struct SearchIntentCommand: Codable, Sendable, Equatable {
    public static let name = "search.intent.v1"
    public var q: String
    public var lat: Double?
    public var lng: Double?

    public init(q: String, lat: Double?, lng: Double?) {
        self.q = q
        self.lat = lat
        self.lng = lng
    }
}
