/// Territory (docs/COMPATIBILITY.md#territory): how much of a geohash-6 tile's investables the caller has caught.
/// The gateway asks Nearby for the tile (from its centre) and Identify for the caller's side of the count.

/// The tile's co-op progress this weekly cycle: distinct finders who caught there, up to the threshold that uncovers it.
public struct TerritoryCoop: Codable, Sendable, Equatable {
    public var contributors: Int
    public var threshold: Int
    public var uncovered: Bool

    public init(contributors: Int, threshold: Int, uncovered: Bool) {
        self.contributors = contributors
        self.threshold = threshold
        self.uncovered = uncovered
    }
}

/// `GET /v1/territory`.
public struct TerritoryResponse: Codable, Sendable, Equatable {
    public var tile: String
    public var investablesTotal: Int
    public var found: Int
    public var pioneer: Bool
    public var sources: [Source]
    public var coop: TerritoryCoop

    public init(
        tile: String, investablesTotal: Int, found: Int, pioneer: Bool, sources: [Source], coop: TerritoryCoop
    ) {
        self.tile = tile
        self.investablesTotal = investablesTotal
        self.found = found
        self.pioneer = pioneer
        self.sources = sources
        self.coop = coop
    }
}

/// Sent by the gateway to Identify: the caller's finds against a tile's investable tickers.
public struct TerritoryFindsCommand: Codable, Sendable, Equatable {
    public static let name = "territory.finds.v1"
    public var userId: String
    /// The geohash-6 tile, lower-case.
    public var tile: String
    /// The tickers the places cascade resolved in the tile (the denominator).
    public var tickers: [String]

    public init(userId: String, tile: String, tickers: [String]) {
        self.userId = userId
        self.tile = tile
        self.tickers = tickers
    }
}

/// Identify's answer to `TerritoryFindsCommand`.
public struct TerritoryFinds: Codable, Sendable, Equatable {
    /// Distinct tickers of the tile.
    public var investablesTotal: Int
    /// How many of them the caller has caught, anywhere.
    public var found: Int
    /// The caller has no find with coordinates in the tile yet.
    public var pioneer: Bool
    public var coop: TerritoryCoop

    public init(investablesTotal: Int, found: Int, pioneer: Bool, coop: TerritoryCoop) {
        self.investablesTotal = investablesTotal
        self.found = found
        self.pioneer = pioneer
        self.coop = coop
    }
}
