/// Watchlist and daily-brief wire types (docs/COMPATIBILITY.md#watchlists): HTTP bodies, the gateway's commands to
/// Briefs, and the commands schedulers and outside producers publish on Briefs' topic.

/// Where a ticker was saved from.
public enum WatchSource: String, Codable, Sendable, CaseIterable {
    case camera, map, list, manual, detail, live, web
}

/// `{ticker, name?, sector?, source, memo?, memoProvider?, createdAt, listId?}`; absent fields are omitted.
public struct WatchEntry: Codable, Sendable, Equatable {
    public var ticker: String
    public var name: String?
    public var sector: String?
    public var source: WatchSource
    public var memo: String?
    public var memoProvider: String?
    public var createdAt: String
    public var listId: String?

    public init(
        ticker: String, name: String? = nil, sector: String? = nil, source: WatchSource, memo: String? = nil,
        memoProvider: String? = nil, createdAt: String, listId: String? = nil
    ) {
        self.ticker = ticker
        self.name = name
        self.sector = sector
        self.source = source
        self.memo = memo
        self.memoProvider = memoProvider
        self.createdAt = createdAt
        self.listId = listId
    }
}

/// A named list: `{id, name, isDefault, tickerCount?, createdAt}` (`tickerCount` only where
/// docs/COMPATIBILITY.md#watchlists shows it).
public struct WatchList: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var isDefault: Bool
    public var tickerCount: Int?
    public var createdAt: String

    public init(id: String, name: String, isDefault: Bool, tickerCount: Int? = nil, createdAt: String) {
        self.id = id
        self.name = name
        self.isDefault = isDefault
        self.tickerCount = tickerCount
        self.createdAt = createdAt
    }
}

public struct WatchListsResponse: Codable, Sendable, Equatable {
    public var lists: [WatchList]
    public init(lists: [WatchList]) { self.lists = lists }
}

public struct WatchListResponse: Codable, Sendable, Equatable {
    public var list: WatchList
    public init(list: WatchList) { self.list = list }
}

public struct WatchEntriesResponse: Codable, Sendable, Equatable {
    public var items: [WatchEntry]
    public init(items: [WatchEntry]) { self.items = items }
}

public struct WatchEntryResponse: Codable, Sendable, Equatable {
    public var entry: WatchEntry
    public init(entry: WatchEntry) { self.entry = entry }
}

/// `POST /v1/watchlist/add`: the stored entry and whether neither a quote nor comparables confirmed the ticker.
public struct WatchAddResponse: Codable, Sendable, Equatable {
    public var entry: WatchEntry
    public var unresolved: Bool
    public init(entry: WatchEntry, unresolved: Bool) {
        self.entry = entry
        self.unresolved = unresolved
    }
}

public struct WatchRemoveResponse: Codable, Sendable, Equatable {
    public var ok: Bool
    public var removed: Bool
    public init(removed: Bool) {
        self.ok = true
        self.removed = removed
    }
}

/// `GET /v1/watchlist/list-summary`: sector composition (`Uncategorized` for a missing sector), most first.
public struct WatchListSummary: Codable, Sendable, Equatable {
    public struct Sector: Codable, Sendable, Equatable {
        public var sector: String
        public var count: Int
        public var pct: Double
        public init(sector: String, count: Int, pct: Double) {
            self.sector = sector
            self.count = count
            self.pct = pct
        }
    }
    public var sectors: [Sector]
    public var backtestReady: Bool
    public var tickerCount: Int
    public var updatedAt: String

    public init(sectors: [Sector], backtestReady: Bool, tickerCount: Int, updatedAt: String) {
        self.sectors = sectors
        self.backtestReady = backtestReady
        self.tickerCount = tickerCount
        self.updatedAt = updatedAt
    }
}

/// Mapvest Daily: `{headline, body, generatedAt}` and nothing else (never a model or provider name).
public struct DailyBrief: Codable, Sendable, Equatable {
    public var headline: String
    public var body: String
    public var generatedAt: String
    public init(headline: String, body: String, generatedAt: String) {
        self.headline = headline
        self.body = body
        self.generatedAt = generatedAt
    }
}

/// One watchlist headline: a news headline plus the ticker it was fetched for.
public struct WatchHeadline: Codable, Sendable, Equatable {
    public var title: String
    public var url: String
    public var source: String
    public var publishedAt: String
    public var ticker: String
    public var jevMateriality: JevMateriality?

    enum CodingKeys: String, CodingKey {
        case title, url, source, publishedAt, ticker
        case jevMateriality = "jev_materiality"
    }

    public init(
        title: String, url: String, source: String, publishedAt: String, ticker: String,
        jevMateriality: JevMateriality? = nil
    ) {
        self.title = title
        self.url = url
        self.source = source
        self.publishedAt = publishedAt
        self.ticker = ticker
        self.jevMateriality = jevMateriality
    }
}

/// `GET /v1/watchlist/headlines`: `{items, tickers, materiality: <floor>|null, generatedAt}`.
public struct WatchHeadlinesResponse: Codable, Sendable, Equatable {
    public var items: [WatchHeadline]
    public var tickers: [String]
    public var materiality: MaterialityLevel?
    public var generatedAt: String

    public init(items: [WatchHeadline], tickers: [String], materiality: MaterialityLevel?, generatedAt: String) {
        self.items = items
        self.tickers = tickers
        self.materiality = materiality
        self.generatedAt = generatedAt
    }

    enum CodingKeys: String, CodingKey { case items, tickers, materiality, generatedAt }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(items, forKey: .items)
        try c.encode(tickers, forKey: .tickers)
        if let materiality {
            try c.encode(materiality, forKey: .materiality)
        } else {
            try c.encodeNil(forKey: .materiality)
        }
        try c.encode(generatedAt, forKey: .generatedAt)
    }
}

/// `GET /v1/news/read`: the article text from Exa, or `error: "unavailable"` with empty text.
public struct NewsReadResponse: Codable, Sendable, Equatable {
    public var title: String?
    public var url: String
    public var text: String
    public var source: String
    public var fetchedAt: String
    public var error: String?

    public init(title: String?, url: String, text: String, fetchedAt: String, error: String? = nil) {
        self.title = title
        self.url = url
        self.text = text
        self.source = "exa"
        self.fetchedAt = fetchedAt
        self.error = error
    }
}

// MARK: - Commands (gateway → Briefs, request/reply)

/// Command names on `mapvest.briefs.commands.v1`.
public enum WatchlistCommandName {
    public static let lists = "watchlist.lists.v1"
    public static let createList = "watchlist.lists.create.v1"
    public static let renameList = "watchlist.lists.rename.v1"
    public static let setDefault = "watchlist.lists.default.v1"
    public static let deleteList = "watchlist.lists.delete.v1"
    public static let summary = "watchlist.summary.v1"
    public static let move = "watchlist.move.v1"
    public static let entries = "watchlist.entries.v1"
    public static let add = "watchlist.add.v1"
    public static let remove = "watchlist.remove.v1"
    public static let memo = "watchlist.memo.v1"
    public static let brief = "watchlist.brief.v1"
    public static let headlines = "watchlist.headlines.v1"
    public static let contains = "watchlist.contains.v1"
    public static let newsRead = "news.read.v1"
}

/// A command about one user's list (`listId` nil = the default list, or none for the lists index).
public struct WatchListCommand: Codable, Sendable, Equatable {
    public var userId: String
    public var listId: String?
    public init(userId: String, listId: String? = nil) {
        self.userId = userId
        self.listId = listId
    }
}

/// Create (`listId` nil) or rename a list; `name` trimmed, non-empty, at most 60 characters.
public struct WatchListNameCommand: Codable, Sendable, Equatable {
    public var userId: String
    public var listId: String?
    public var name: String
    public init(userId: String, listId: String?, name: String) {
        self.userId = userId
        self.listId = listId
        self.name = name
    }
}

public struct WatchMoveCommand: Codable, Sendable, Equatable {
    public var userId: String
    public var ticker: String
    public var fromListId: String?
    public var toListId: String
    public init(userId: String, ticker: String, fromListId: String?, toListId: String) {
        self.userId = userId
        self.ticker = ticker
        self.fromListId = fromListId
        self.toListId = toListId
    }
}

/// Upsert one entry; nil fields keep what is stored (a new entry gets `manual` and the default list).
public struct WatchAddCommand: Codable, Sendable, Equatable {
    public var userId: String
    public var ticker: String
    public var name: String?
    public var sector: String?
    public var source: WatchSource?
    public var listId: String?
    public init(userId: String, ticker: String, name: String?, sector: String?, source: WatchSource?, listId: String?) {
        self.userId = userId
        self.ticker = ticker
        self.name = name
        self.sector = sector
        self.source = source
        self.listId = listId
    }
}

public struct WatchTickerCommand: Codable, Sendable, Equatable {
    public var userId: String
    public var ticker: String
    public init(userId: String, ticker: String) {
        self.userId = userId
        self.ticker = ticker
    }
}

public struct WatchMemoCommand: Codable, Sendable, Equatable {
    public var userId: String
    public var ticker: String
    public var memo: String
    public var provider: String?
    public init(userId: String, ticker: String, memo: String, provider: String?) {
        self.userId = userId
        self.ticker = ticker
        self.memo = memo
        self.provider = provider
    }
}

public struct WatchHeadlinesCommand: Codable, Sendable, Equatable {
    public var userId: String
    public var listId: String?
    public var materiality: MaterialityLevel?
    public init(userId: String, listId: String?, materiality: MaterialityLevel?) {
        self.userId = userId
        self.listId = listId
        self.materiality = materiality
    }
}

public struct NewsReadCommand: Codable, Sendable, Equatable {
    public var url: String
    public init(url: String) { self.url = url }
}

/// Identify → Briefs: which of `tickers` are on the user's default list right now.
public struct WatchContainsCommand: Codable, Sendable, Equatable {
    public var userId: String
    public var tickers: [String]
    public init(userId: String, tickers: [String]) {
        self.userId = userId
        self.tickers = tickers
    }
}

public struct WatchContainsReply: Codable, Sendable, Equatable {
    public var watchlisted: [String]
    public init(watchlisted: [String]) { self.watchlisted = watchlisted }
}

// MARK: - Scheduled commands (schedulers and outside producers → Briefs, no reply)

/// "Generate the daily briefs" (`briefs.daily.generate.v1`): without `userId`, for every user with tickers on their
/// default list (expanded into one command per user, keyed by user id); with it, for that user. The brief is the
/// default list's, and its `daily_brief` push goes out at most once per user per UTC day.
public struct GenerateDailyBriefsCommand: Codable, Sendable, Equatable {
    public static let name = "briefs.daily.generate.v1"
    public var userId: String?
    public init(userId: String? = nil) { self.userId = userId }
}

/// "Scan default-list movers" (`briefs.movers.scan.v1`): without `userId` for every user, else for one; a ticker
/// moving ≥ 5 % pushes `watchlist_mover` once per ticker per UTC day per user.
public struct ScanWatchlistMoversCommand: Codable, Sendable, Equatable {
    public static let name = "briefs.movers.scan.v1"
    public var userId: String?
    public init(userId: String? = nil) { self.userId = userId }
}
