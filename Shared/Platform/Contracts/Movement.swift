/// The movement scheduler's commands on Briefs' topic (docs/COMPATIBILITY.md#movement). Location is per device: every
/// command names one push registration (`push_…` token id), never an account.

/// "A device reported where it is" (`briefs.device.fix.v1`, keyed by token id): published by PushDispatcher for
/// each location heartbeat (it owns tokens and their prefs), with the device's opt-ins at that moment. Briefs keeps
/// the newest fix per device; the dispatcher still checks opt-ins when it delivers.
public struct DeviceFixCommand: Codable, Sendable, Equatable {
    public static let name = "briefs.device.fix.v1"
    public var tokenId: String
    public var userId: String
    public var lat: Double
    public var lng: Double
    /// ISO-8601 time of the fix (`last_location_at`), or when the heartbeat arrived.
    public var locatedAt: String
    public var notificationsEnabled: Bool
    public var localBrief: Bool
    public var uncaughtNearby: Bool

    public init(
        tokenId: String, userId: String, lat: Double, lng: Double, locatedAt: String, notificationsEnabled: Bool,
        localBrief: Bool, uncaughtNearby: Bool
    ) {
        self.tokenId = tokenId
        self.userId = userId
        self.lat = lat
        self.lng = lng
        self.locatedAt = locatedAt
        self.notificationsEnabled = notificationsEnabled
        self.localBrief = localBrief
        self.uncaughtNearby = uncaughtNearby
    }
}

/// "Scan devices that moved" (`briefs.movement.scan.v1`): hourly from the scheduler without `tokenId` (expanded
/// into one command per device with a fresh fix, keyed by token id); with it, that device's local-brief and
/// uncaught-nearby branches.
public struct ScanMovementCommand: Codable, Sendable, Equatable {
    public static let name = "briefs.movement.scan.v1"
    public var tokenId: String?
    public init(tokenId: String? = nil) { self.tokenId = tokenId }
}

/// "Check finds for evolution" (`briefs.find_evolution.scan.v1`, docs/COMPATIBILITY.md#push-events): every 15 minutes
/// at minute ≡ 7 from the scheduler without `userId` (expanded into one command per user with priced finds, keyed by
/// user id); with it, that user's finds. Outside producers may publish either.
public struct ScanFindEvolutionCommand: Codable, Sendable, Equatable {
    public static let name = "briefs.find_evolution.scan.v1"
    public var userId: String?
    public init(userId: String? = nil) { self.userId = userId }
}
