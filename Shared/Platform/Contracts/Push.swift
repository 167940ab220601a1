/// The nine push event keys a device can opt into (docs/COMPATIBILITY.md#push-types).
public enum PushEventKey: String, Codable, Sendable, CaseIterable {
    case dailyBrief = "daily_brief"
    case localBrief = "local_brief"
    case priceAlerts = "price_alerts"
    case memoFinished = "memo_finished"
    case agentResponse = "agent_response"
    case identifyDone = "identify_done"
    case watchlistMover = "watchlist_mover"
    case findEvolution = "find_evolution"
    case uncaughtNearby = "uncaught_nearby"
}

/// Where a notification opens the app (`PushNotificationTarget`, discriminated by `type`). Extra fields
/// (`section`, `ticker`, `placeId`, `lat`, …) travel in `fields`.
public struct PushTarget: Codable, Sendable, Equatable {
    public var type: String
    public var fields: [String: JSONValue]

    public init(type: String, fields: [String: JSONValue] = [:]) {
        self.type = type
        self.fields = fields
    }

    public init(from decoder: any Decoder) throws {
        var all = try [String: JSONValue](from: decoder)
        guard case .string(let t)? = all.removeValue(forKey: "type") else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "target.type"))
        }
        self.type = t
        self.fields = all
    }

    public func encode(to encoder: any Encoder) throws {
        var all = fields
        all["type"] = .string(type)
        try all.encode(to: encoder)
    }
}

/// One dedupe slot and key: a device that already got `key` in `slot` is skipped.
public struct PushDedupe: Codable, Sendable, Equatable {
    public var slot: String
    public var key: String
    var ttlMs: Int?

    public init(slot: String, key: String, ttlMs: Int? = nil) {
        self.slot = slot
        self.key = key
        self.ttlMs = ttlMs
    }
}

/// A notification request on `mapvest.push.requests.v1`. Any service may publish one; the PushDispatcher
/// fans it out to the opted-in, actively claimed devices of the recipients.
public struct PushRequest: Codable, Sendable, Equatable {
    public static let name = "push.request.v1"

    /// Idempotency id of the request (a redelivered request is harmless: dedupe keys also protect it).
    public var id: String
    /// Recipient user ids.
    public var userIds: [String]
    /// Only this registration (`push_…` token id), for device-scoped events.
    public var tokenId: String?
    public var eventKey: PushEventKey?
    public var eventKind: String?
    public var title: String
    public var body: String
    public var data: [String: JSONValue]
    public var target: PushTarget
    public var dedupe: [PushDedupe]
    /// Expo `ttl` seconds (default 86 400, clamped 300…604 800 by the dispatcher).
    public var ttlSeconds: Int?

    public init(
        id: String, userIds: [String], tokenId: String? = nil, eventKey: PushEventKey?, eventKind: String? = nil,
        title: String, body: String, data: [String: JSONValue], target: PushTarget, dedupe: [PushDedupe],
        ttlSeconds: Int? = nil
    ) {
        self.id = id
        self.userIds = userIds
        self.tokenId = tokenId
        self.eventKey = eventKey
        self.eventKind = eventKind
        self.title = title
        self.body = body
        self.data = data
        self.target = target
        self.dedupe = dedupe
        self.ttlSeconds = ttlSeconds
    }
}
