/// `mapvest.watchlist.changed` (schema 1): a user's lists or entries changed. Keyed by the user id. Carries the
/// default list's id after the change so consumers can follow a promotion.
public struct WatchlistChangedEvent: Codable, Sendable, Equatable {
    public static let type = "mapvest.watchlist.changed"
    public static let schemaVersion = 1

    /// `entry_added`, `entry_removed`, `entry_moved`, `memo_attached`, `list_created`, `list_renamed`,
    /// `list_deleted`, `default_changed`.
    public var change: String
    public var userId: String
    public var listId: String?
    public var ticker: String?
    public var defaultListId: String?

    public init(change: String, userId: String, listId: String?, ticker: String?, defaultListId: String?) {
        self.change = change
        self.userId = userId
        self.listId = listId
        self.ticker = ticker
        self.defaultListId = defaultListId
    }
}

/// `mapvest.brief.generated` (schema 1): a daily brief was written or reused for a list. Keyed by the user id.
/// Never carries the brief's text or a model name.
public struct BriefGeneratedEvent: Codable, Sendable, Equatable {
    public static let type = "mapvest.brief.generated"
    public static let schemaVersion = 1

    public var userId: String
    public var listId: String
    public var isDefault: Bool
    /// `generated` (a model wrote it), `reused` (the Jev pre-filter kept the previous one) or `outage`.
    public var kind: String
    public var tickers: Int
    public var headlines: Int
    public var latencyMs: Int
    /// Whether a `daily_brief` push request was published for it.
    public var pushed: Bool

    public init(
        userId: String, listId: String, isDefault: Bool, kind: String, tickers: Int, headlines: Int, latencyMs: Int,
        pushed: Bool
    ) {
        self.userId = userId
        self.listId = listId
        self.isDefault = isDefault
        self.kind = kind
        self.tickers = tickers
        self.headlines = headlines
        self.latencyMs = latencyMs
        self.pushed = pushed
    }
}
