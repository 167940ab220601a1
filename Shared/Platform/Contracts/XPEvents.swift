/// XP events (docs/COMPATIBILITY.md#xp-events): global windows in which matching finds earn more XP.

/// An open event: `[startsAt, endsAt)`; `sector` scopes it (absent: every find).
public struct ActiveEvent: Codable, Sendable, Equatable {
    public var key: String
    public var title: String
    public var sector: String?
    public var multiplier: Int
    public var startsAt: String
    public var endsAt: String

    public init(key: String, title: String, sector: String?, multiplier: Int, startsAt: String, endsAt: String) {
        self.key = key
        self.title = title
        self.sector = sector
        self.multiplier = multiplier
        self.startsAt = startsAt
        self.endsAt = endsAt
    }
}

/// `GET /v1/events/current`: `{"active": ActiveEvent | null}`, the null written out.
public struct EventsResponse: Codable, Sendable, Equatable {
    public var active: ActiveEvent?

    public init(active: ActiveEvent?) { self.active = active }

    enum CodingKeys: String, CodingKey { case active }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        if let active { try c.encode(active, forKey: .active) } else { try c.encodeNil(forKey: .active) }
    }
}

/// `GET /v1/events/current`, sent by the gateway to Identify (which applies events to its awards).
public struct CurrentEventCommand: Codable, Sendable, Equatable {
    public static let name = "events.current.get.v1"
    public init() {}
}
