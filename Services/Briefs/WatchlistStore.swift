import Contracts
import Crypto
import Foundation
import Postgres
import Scheduling

/// Watchlists in Briefs' own schema (`briefs`, docs/COMPATIBILITY.md#watchlists): named lists and entries, a ticker in
/// exactly one list per user (primary key `(user_id, ticker)`), and exactly one default list per user — a partial
/// unique index on `(user_id) WHERE is_default`, so no interleaving of writers can ever leave two. The default is
/// created lazily as "Default"; legacy entries without a list are back-filled into it when it is created.
struct WatchlistStore: Sendable {
    let db: PostgresPool

    static let migrations: [Migration] = [
        Migration(
            version: 1, name: "watchlists",
            sql: """
                CREATE TABLE IF NOT EXISTS briefs.watchlist_lists (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL,
                    name TEXT NOT NULL,
                    is_default BOOLEAN NOT NULL DEFAULT false,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
                );
                CREATE UNIQUE INDEX IF NOT EXISTS watchlist_lists_one_default_idx
                    ON briefs.watchlist_lists (user_id) WHERE is_default;
                CREATE INDEX IF NOT EXISTS watchlist_lists_user_idx ON briefs.watchlist_lists (user_id, created_at);
                CREATE TABLE IF NOT EXISTS briefs.user_watchlist (
                    user_id TEXT NOT NULL,
                    ticker TEXT NOT NULL,
                    name TEXT,
                    sector TEXT,
                    source TEXT NOT NULL,
                    memo TEXT,
                    memo_provider TEXT,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
                    updated_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
                    list_id TEXT,
                    PRIMARY KEY (user_id, ticker)
                );
                CREATE INDEX IF NOT EXISTS user_watchlist_list_idx ON briefs.user_watchlist (list_id, created_at DESC);
                """),
        SlotClaims.migration(version: 2, table: "briefs.job_slots"),
    ]

    static let iso = #"'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'"#
    private static let listColumns = """
        l.id, l.name, l.is_default, to_char(l.created_at AT TIME ZONE 'UTC', \(iso)) AS created_iso
        """
    private static let entryColumns = """
        w.ticker, w.name AS entry_name, w.sector, w.source, w.memo, w.memo_provider, w.list_id,
        to_char(w.created_at AT TIME ZONE 'UTC', \(iso)) AS entry_created_iso
        """

    static func list(_ row: PostgresRow, count: Bool = false) -> WatchList? {
        guard let id = row.string("id"), let name = row.string("name"), let created = row.string("created_iso") else {
            return nil
        }
        return WatchList(
            id: id, name: name, isDefault: row.bool("is_default") ?? false,
            tickerCount: count ? row.int("ticker_count") ?? 0 : nil, createdAt: created)
    }

    static func entry(_ row: PostgresRow) -> WatchEntry? {
        guard let ticker = row.string("ticker"), let created = row.string("entry_created_iso") else { return nil }
        return WatchEntry(
            ticker: ticker, name: row.string("entry_name"), sector: row.string("sector"),
            source: WatchSource(rawValue: row.string("source") ?? "") ?? .manual, memo: row.string("memo"),
            memoProvider: row.string("memo_provider"), createdAt: created, listId: row.string("list_id"))
    }

    static func newListId() -> String { "wl_" + Digest.randomHex(bytes: 10) }

    // MARK: - Lists

    /// The user's default list, created (and legacy entries back-filled) when missing.
    func defaultList(userId: String) async throws -> WatchList {
        if let found = try await findDefault(userId: userId) { return found }
        try await db.transaction { connection in
            let id = Self.newListId()
            try await connection.execute(
                """
                INSERT INTO briefs.watchlist_lists (id, user_id, name, is_default)
                VALUES (\(id), \(userId), 'Default', true)
                ON CONFLICT (user_id) WHERE is_default DO NOTHING
                """)
            try await connection.execute(
                """
                UPDATE briefs.user_watchlist SET list_id = (
                    SELECT id FROM briefs.watchlist_lists WHERE user_id = \(userId) AND is_default)
                WHERE user_id = \(userId) AND list_id IS NULL
                """)
        }
        guard let created = try await findDefault(userId: userId) else { throw StoreError.vanished }
        return created
    }

    private func findDefault(userId: String) async throws -> WatchList? {
        try await db.query(
            "SELECT \(unescaped: Self.listColumns) FROM briefs.watchlist_lists l WHERE l.user_id = \(userId) AND l.is_default"
        ).first.flatMap { Self.list($0) }
    }

    /// Default first, then by creation, with ticker counts.
    func lists(userId: String) async throws -> [WatchList] {
        _ = try await defaultList(userId: userId)
        return try await db.query(
            """
            SELECT \(unescaped: Self.listColumns),
                   (SELECT count(*) FROM briefs.user_watchlist w WHERE w.user_id = l.user_id AND w.list_id = l.id)
                       AS ticker_count
            FROM briefs.watchlist_lists l WHERE l.user_id = \(userId)
            ORDER BY l.is_default DESC, l.created_at ASC, l.id ASC
            """
        ).compactMap { Self.list($0, count: true) }
    }

    func createList(userId: String, name: String) async throws -> WatchList {
        _ = try await defaultList(userId: userId)
        let rows = try await db.query(
            """
            INSERT INTO briefs.watchlist_lists AS l (id, user_id, name, is_default)
            VALUES (\(Self.newListId()), \(userId), \(name), false)
            RETURNING \(unescaped: Self.listColumns)
            """)
        guard let list = rows.first.flatMap({ Self.list($0) }) else { throw StoreError.vanished }
        return list
    }

    func renameList(userId: String, listId: String, name: String) async throws -> WatchList? {
        try await db.query(
            """
            UPDATE briefs.watchlist_lists AS l SET name = \(name)
            WHERE l.id = \(listId) AND l.user_id = \(userId)
            RETURNING \(unescaped: Self.listColumns)
            """
        ).first.flatMap { Self.list($0) }
    }

    /// Promotes `listId` and demotes the previous default in one transaction. The user's list rows are locked
    /// first (`FOR UPDATE`), so concurrent promotions run one after another; demoting before promoting keeps the
    /// partial unique index satisfied at every statement.
    func setDefault(userId: String, listId: String) async throws -> WatchList? {
        _ = try await defaultList(userId: userId)
        return try await db.transaction { connection in
            let owned = try await connection.query(
                "SELECT id FROM briefs.watchlist_lists WHERE user_id = \(userId) ORDER BY id FOR UPDATE")
            guard owned.contains(where: { $0.string("id") == listId }) else { return nil }
            try await connection.execute(
                """
                UPDATE briefs.watchlist_lists SET is_default = false
                WHERE user_id = \(userId) AND is_default AND id <> \(listId)
                """)
            return try await connection.query(
                """
                UPDATE briefs.watchlist_lists AS l SET is_default = true
                WHERE l.id = \(listId) AND l.user_id = \(userId)
                RETURNING \(unescaped: Self.listColumns)
                """
            ).first.flatMap { Self.list($0) }
        }
    }

    enum DeleteOutcome: Sendable { case deleted, isDefault, notFound }

    /// Deletes a non-default list and its entries.
    func deleteList(userId: String, listId: String) async throws -> DeleteOutcome {
        try await db.transaction { connection in
            let rows = try await connection.query(
                """
                SELECT is_default FROM briefs.watchlist_lists WHERE id = \(listId) AND user_id = \(userId) FOR UPDATE
                """)
            guard let row = rows.first else { return .notFound }
            if row.bool("is_default") == true { return .isDefault }
            try await connection.execute(
                "DELETE FROM briefs.user_watchlist WHERE user_id = \(userId) AND list_id = \(listId)")
            try await connection.execute(
                "DELETE FROM briefs.watchlist_lists WHERE id = \(listId) AND user_id = \(userId)")
            return .deleted
        }
    }

    // MARK: - Entries

    /// A list (`listId` nil = the default, created when missing) with its entries newest first, in one query; nil
    /// when the user has no such list.
    func listWithEntries(userId: String, listId: String?) async throws -> (list: WatchList, entries: [WatchEntry])? {
        if let found = try await listJoined(userId: userId, listId: listId) { return found }
        guard listId == nil else { return nil }
        _ = try await defaultList(userId: userId)
        return try await listJoined(userId: userId, listId: nil)
    }

    private func listJoined(userId: String, listId: String?) async throws -> (list: WatchList, entries: [WatchEntry])? {
        let rows = try await db.query(
            """
            SELECT \(unescaped: Self.listColumns), \(unescaped: Self.entryColumns)
            FROM briefs.watchlist_lists l
            LEFT JOIN briefs.user_watchlist w ON w.user_id = l.user_id AND w.list_id = l.id
            WHERE l.user_id = \(userId) AND (CASE WHEN \(listId)::text IS NULL THEN l.is_default ELSE l.id = \(listId) END)
            ORDER BY w.created_at DESC NULLS LAST, w.ticker ASC
            """)
        guard let list = rows.first.flatMap({ Self.list($0) }) else { return nil }
        return (list, rows.compactMap(Self.entry))
    }

    /// Upserts an entry: omitted fields keep their stored values; a new entry defaults to `manual` and `listId`.
    /// The same call repeated gives the same row (created time kept).
    func upsert(_ add: WatchAddCommand, ticker: String, name: String?, newListId: String) async throws -> WatchEntry {
        let rows = try await db.query(
            """
            INSERT INTO briefs.user_watchlist AS w (user_id, ticker, name, sector, source, list_id)
            VALUES (\(add.userId), \(ticker), \(name), \(add.sector), \(add.source?.rawValue ?? WatchSource.manual.rawValue),
                    \(add.listId ?? newListId))
            ON CONFLICT (user_id, ticker) DO UPDATE SET
                name = COALESCE(\(add.name), w.name, EXCLUDED.name),
                sector = COALESCE(EXCLUDED.sector, w.sector),
                source = COALESCE(\(add.source?.rawValue), w.source),
                list_id = COALESCE(\(add.listId), w.list_id, EXCLUDED.list_id),
                updated_at = clock_timestamp()
            RETURNING \(unescaped: Self.entryColumns)
            """)
        guard let entry = rows.first.flatMap(Self.entry) else { throw StoreError.vanished }
        return entry
    }

    /// Removes a ticker from whichever list holds it; the list it was in, or nil when it was not saved.
    func remove(userId: String, ticker: String) async throws -> String?? {
        let rows = try await db.query(
            "DELETE FROM briefs.user_watchlist WHERE user_id = \(userId) AND ticker = \(ticker) RETURNING list_id")
        guard let row = rows.first else { return nil }
        return .some(row.string("list_id"))
    }

    enum MoveOutcome: Sendable { case moved, listNotFound, tickerNotFound }

    func move(userId: String, ticker: String, from: String?, to: String) async throws -> MoveOutcome {
        let updated = try await db.query(
            """
            WITH target AS (SELECT id FROM briefs.watchlist_lists WHERE id = \(to) AND user_id = \(userId)),
            moved AS (
                UPDATE briefs.user_watchlist SET list_id = (SELECT id FROM target), updated_at = clock_timestamp()
                WHERE user_id = \(userId) AND ticker = \(ticker) AND EXISTS (SELECT 1 FROM target)
                  AND (\(from)::text IS NULL OR list_id = \(from))
                RETURNING ticker)
            SELECT (SELECT count(*) FROM target) AS targets, (SELECT count(*) FROM moved) AS moved
            """)
        guard let row = updated.first, (row.int("targets") ?? 0) > 0 else { return .listNotFound }
        return (row.int("moved") ?? 0) > 0 ? .moved : .tickerNotFound
    }

    func attachMemo(userId: String, ticker: String, memo: String, provider: String?) async throws -> WatchEntry? {
        try await db.query(
            """
            UPDATE briefs.user_watchlist AS w SET memo = \(memo), memo_provider = COALESCE(\(provider), w.memo_provider),
                updated_at = clock_timestamp()
            WHERE w.user_id = \(userId) AND w.ticker = \(ticker)
            RETURNING \(unescaped: Self.entryColumns)
            """
        ).first.flatMap(Self.entry)
    }

    /// Which of `tickers` are on the user's default list now (no list is created).
    func onDefaultList(userId: String, tickers: [String]) async throws -> [String] {
        try await db.query(
            """
            SELECT w.ticker FROM briefs.user_watchlist w
            JOIN briefs.watchlist_lists l ON l.id = w.list_id AND l.user_id = w.user_id AND l.is_default
            WHERE w.user_id = \(userId) AND w.ticker = ANY(\(tickers))
            """
        ).compactMap { $0.string("ticker") }
    }

    /// Users whose default list holds at least one ticker, in id order after `after`, at most `limit`. A semi-join
    /// walked in `user_id` order, with the page's lower bound repeated inside it so both index scans start at the
    /// page: each page costs its own rows, not every user after it (docs/BENCHMARKS.md, batch scale curves).
    func usersWithDefaultTickers(after: String, limit: Int) async throws -> [String] {
        try await db.query(
            """
            SELECT l.user_id FROM briefs.watchlist_lists l
            WHERE l.is_default AND l.user_id > \(after) AND EXISTS (
                SELECT 1 FROM briefs.user_watchlist w
                WHERE w.user_id = l.user_id AND w.list_id = l.id AND w.user_id > \(after))
            ORDER BY l.user_id LIMIT \(limit)
            """
        ).compactMap { $0.string("user_id") }
    }

    enum StoreError: Error { case vanished }
}
