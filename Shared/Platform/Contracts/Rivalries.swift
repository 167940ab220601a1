/// Rivalries (docs/COMPATIBILITY.md#rivalries): a user's solo weekly matchups of one ticker against another, with a
/// running record and an optional pick for the open round. A comprehension game: no position, never advice.

/// The side a pick backs: the user's own ticker or its rival.
public enum RivalryPick: String, Codable, Sendable {
    case ticker, rival
}

/// One matchup as the client sees it; `currentPick` is absent when none is registered.
public struct Rivalry: Codable, Sendable, Equatable {
    public var id: String
    public var ticker: String
    public var rivalTicker: String
    public var wins: Int
    public var losses: Int
    public var draws: Int
    public var currentPick: RivalryPick?
    /// The Monday (UTC, `YYYY-MM-DD`) of the open round.
    public var weekStart: String
    public var createdAt: String

    public init(
        id: String, ticker: String, rivalTicker: String, wins: Int, losses: Int, draws: Int,
        currentPick: RivalryPick?, weekStart: String, createdAt: String
    ) {
        self.id = id
        self.ticker = ticker
        self.rivalTicker = rivalTicker
        self.wins = wins
        self.losses = losses
        self.draws = draws
        self.currentPick = currentPick
        self.weekStart = weekStart
        self.createdAt = createdAt
    }
}

/// Every rivalries success: the caller's whole list, newest first.
public struct RivalriesResponse: Codable, Sendable, Equatable {
    public var rivalries: [Rivalry]
    public var count: Int

    public init(rivalries: [Rivalry]) {
        self.rivalries = rivalries
        self.count = rivalries.count
    }
}

/// `409` when the pairing exists: the id the caller already owns.
public struct RivalryConflict: Codable, Sendable, Equatable {
    public var error: String
    public var rivalryId: String

    public init(rivalryId: String) {
        self.error = "rivalry already exists"
        self.rivalryId = rivalryId
    }
}

/// The rivalries commands, sent by the gateway to Identify keyed by the user id.
public enum RivalryCommandName {
    public static let list = "rivalries.list.v1"
    public static let create = "rivalries.create.v1"
    public static let pick = "rivalries.pick.v1"
    public static let delete = "rivalries.delete.v1"
    /// Scheduled at Saturday 12:00 UTC: close the rounds of the week (body `{}`).
    public static let close = "rivalries.close.v1"
}

/// `GET /v1/rivalries`, and `DELETE /v1/rivalries/{id}` with `rivalryId`.
public struct RivalryUserCommand: Codable, Sendable, Equatable {
    public var userId: String
    public var rivalryId: String?

    public init(userId: String, rivalryId: String? = nil) {
        self.userId = userId
        self.rivalryId = rivalryId
    }
}

/// `POST /v1/rivalries`: the symbols as sent (Identify trims, upper-cases and checks them); no rival → the top
/// comparable.
public struct CreateRivalryCommand: Codable, Sendable, Equatable {
    public var userId: String
    public var ticker: String
    public var rivalTicker: String?

    public init(userId: String, ticker: String, rivalTicker: String?) {
        self.userId = userId
        self.ticker = ticker
        self.rivalTicker = rivalTicker
    }
}

/// `POST /v1/rivalries/{id}/pick`: nil clears the pick.
public struct RivalryPickCommand: Codable, Sendable, Equatable {
    public var userId: String
    public var rivalryId: String
    public var pick: RivalryPick?

    public init(userId: String, rivalryId: String, pick: RivalryPick?) {
        self.userId = userId
        self.rivalryId = rivalryId
        self.pick = pick
    }
}
