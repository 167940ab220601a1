import Contracts
import Foundation
import HTTPServer

/// The watchlist routes (docs/COMPATIBILITY.md#watchlists, #daily-brief, #news) and `GET /v1/news/read`: validated
/// here, answered by Briefs, which owns watchlists and briefs. Every `/v1/watchlist*` route is bearer-only; commands
/// are keyed by the user id, so one user's writes stay in order on one partition.
struct WatchlistRoutes: Sendable {
    let caller: ServiceCaller
    let budget: Duration
    let briefBudget: Duration
    let addBudget: Duration

    private typealias Name = WatchlistCommandName

    var routes: [Route] {
        [
            user("GET", "/v1/watchlist/lists") { userId, _ in
                (Name.lists, .success(WatchListCommand(userId: userId)))
            },
            user("POST", "/v1/watchlist/lists") { userId, context in
                (
                    Name.createList,
                    Self.name(context).map { WatchListNameCommand(userId: userId, listId: nil, name: $0) }
                )
            },
            user("PATCH", "/v1/watchlist/lists/:id") { userId, context in
                (
                    Name.renameList,
                    Self.name(context).flatMap { name in
                        Self.listId(path: context).map { WatchListNameCommand(userId: userId, listId: $0, name: name) }
                    }
                )
            },
            user("POST", "/v1/watchlist/lists/:id/default") { userId, context in
                (Name.setDefault, Self.listId(path: context).map { WatchListCommand(userId: userId, listId: $0) })
            },
            user("DELETE", "/v1/watchlist/lists/:id") { userId, context in
                (Name.deleteList, Self.listId(path: context).map { WatchListCommand(userId: userId, listId: $0) })
            },
            user("GET", "/v1/watchlist/list-summary") { userId, context in
                (Name.summary, Self.listId(query: context).map { WatchListCommand(userId: userId, listId: $0) })
            },
            user("POST", "/v1/watchlist/move") { userId, context in
                (Name.move, Self.move(userId: userId, context))
            },
            user("GET", "/v1/watchlist/brief", budget: briefBudget) { userId, context in
                (Name.brief, Self.listId(query: context).map { WatchListCommand(userId: userId, listId: $0) })
            },
            user("GET", "/v1/watchlist/headlines") { userId, context in
                (
                    Name.headlines,
                    Self.listId(query: context).map {
                        WatchHeadlinesCommand(
                            userId: userId, listId: $0,
                            materiality: MaterialityLevel(query: context.request.head.query["materiality"]))
                    }
                )
            },
            user("POST", "/v1/watchlist/add", budget: addBudget) { userId, context in
                (Name.add, Self.add(userId: userId, context))
            },
            user("GET", "/v1/watchlist") { userId, context in
                (Name.entries, Self.listId(query: context).map { WatchListCommand(userId: userId, listId: $0) })
            },
            user("DELETE", "/v1/watchlist/:ticker") { userId, context in
                (
                    Name.remove,
                    Self.ticker(context.parameters["ticker"]).map { WatchTickerCommand(userId: userId, ticker: $0) }
                )
            },
            user("POST", "/v1/watchlist/:ticker/memo") { userId, context in
                (Name.memo, Self.memo(userId: userId, context))
            },
            Route("GET", "/v1/news/read", auth: .optional) { context in
                guard let url = Self.articleURL(context.request.head.query["url"]) else {
                    return .error(400, "url required")
                }
                return await caller.call(
                    .briefs, Name.newsRead, key: url, command: NewsReadCommand(url: url), budget: budget,
                    requestId: context.requestId)
            },
        ]
    }

    /// A bearer-only route whose command is built from the request, or whose validation answers at once (also
    /// used by `LocalBriefRoutes`).
    func user<Command: Encodable & Sendable>(
        _ method: String, _ template: String, budget: Duration? = nil,
        _ build: @escaping @Sendable (String, RouteContext) -> (String, Result<Command, Rejection>)
    ) -> Route {
        let (caller, budget) = (self.caller, budget ?? self.budget)
        return Route(method, template, auth: .required) { context in
            guard let userId = context.caller.user?.id else { return .error(.unknownUser) }
            let (name, built) = build(userId, context)
            switch built {
            case .failure(let rejection): return rejection.response
            case .success(let command):
                return await caller.call(
                    .briefs, name, key: userId, command: command, budget: budget, requestId: context.requestId)
            }
        }
    }

    /// A request answered by the gateway: a 400 for bad input, a 404 for a list id no user can own.
    struct Rejection: Error {
        let response: HTTPResponse
        static func bad(_ message: String) -> Rejection { Rejection(response: .error(400, message)) }
        static let noList = Rejection(response: .error(.listNotFound))
    }

    // MARK: - Validation

    /// Trimmed, at most 60 characters; empty → 400 `name required`.
    static func name(_ context: RouteContext) -> Result<String, Rejection> {
        struct Body: Decodable { let name: String? }
        guard case .success(let body) = JSONBody.decode(Body.self, from: context.request, error: ""),
            let trimmed = body.name?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty
        else { return .failure(.bad("name required")) }
        return .success(String(trimmed.prefix(60)))
    }

    /// A list id as issued (`wl_…`, 1–64 of `[A-Za-z0-9_-]`); anything else is no one's list.
    static func isListId(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count)
            && id.utf8.allSatisfy {
                ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 95 || $0 == 45
            }
    }

    static func listId(path context: RouteContext) -> Result<String, Rejection> {
        guard let id = context.parameters["id"], isListId(id) else { return .failure(.noList) }
        return .success(id)
    }

    /// `?listId=`: absent or empty → nil (the default list).
    static func listId(query context: RouteContext) -> Result<String?, Rejection> {
        guard let raw = context.request.head.query["listId"]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else {
            return .success(nil)
        }
        return isListId(raw) ? .success(raw) : .failure(.noList)
    }

    /// Trimmed and upper-cased, 1–32 of `A-Z 0-9 . - ^ = & '` and spaces, at least one a letter or digit (a typed
    /// brand name is checked by comparables).
    static func ticker(_ raw: String?) -> Result<String, Rejection> {
        guard let ticker = raw?.trimmingCharacters(in: .whitespacesAndNewlines).uppercased(), !ticker.isEmpty else {
            return .failure(.bad("ticker required"))
        }
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-^=&' ".utf8)
        // At least one letter or digit: `..` or `-` names no symbol (and `..` is a path segment, not a ticker).
        guard ticker.utf8.count <= 32, ticker.utf8.allSatisfy(allowed.contains),
            ticker.utf8.contains(where: { (65...90).contains($0) || (48...57).contains($0) })
        else {
            return .failure(.bad("invalid ticker"))
        }
        return .success(ticker)
    }

    private struct AddBody: Decodable {
        let ticker: String?
        let name: String?
        let sector: String?
        let source: String?
        let listId: String?
    }

    static func add(userId: String, _ context: RouteContext) -> Result<WatchAddCommand, Rejection> {
        guard case .success(let body) = JSONBody.decode(AddBody.self, from: context.request, error: "") else {
            return .failure(.bad("ticker required"))
        }
        return ticker(body.ticker).flatMap { ticker in
            var source: WatchSource?
            if let raw = body.source?.trimmingCharacters(in: .whitespaces).lowercased(), !raw.isEmpty {
                guard let known = WatchSource(rawValue: raw) else { return .failure(.bad("invalid source")) }
                source = known
            }
            var listId: String?
            if let raw = body.listId?.trimmingCharacters(in: .whitespaces), !raw.isEmpty {
                guard isListId(raw) else { return .failure(.noList) }
                listId = raw
            }
            return .success(
                WatchAddCommand(
                    userId: userId, ticker: ticker, name: text(body.name, max: 200),
                    sector: text(body.sector, max: 100),
                    source: source, listId: listId))
        }
    }

    private struct MoveBody: Decodable {
        let ticker: String?
        let fromListId: String?
        let toListId: String?
    }

    static func move(userId: String, _ context: RouteContext) -> Result<WatchMoveCommand, Rejection> {
        guard case .success(let body) = JSONBody.decode(MoveBody.self, from: context.request, error: ""),
            let toListId = body.toListId?.trimmingCharacters(in: .whitespaces), !toListId.isEmpty,
            case .success(let ticker) = ticker(body.ticker)
        else { return .failure(.bad("ticker + toListId required")) }
        let from = body.fromListId?.trimmingCharacters(in: .whitespaces).nilIfEmpty
        guard isListId(toListId), from.map(isListId) ?? true else { return .failure(.noList) }
        return .success(WatchMoveCommand(userId: userId, ticker: ticker, fromListId: from, toListId: toListId))
    }

    private struct MemoBody: Decodable {
        let memo: String?
        let provider: String?
    }

    static func memo(userId: String, _ context: RouteContext) -> Result<WatchMemoCommand, Rejection> {
        ticker(context.parameters["ticker"]).flatMap { ticker in
            guard case .success(let body) = JSONBody.decode(MemoBody.self, from: context.request, error: ""),
                let memo = body.memo, memo.trimmingCharacters(in: .whitespacesAndNewlines).count >= 20
            else { return .failure(.bad("memo required (min 20 chars)")) }
            guard memo.utf8.count <= 100_000 else { return .failure(.bad("memo too long (max 100000 bytes)")) }
            return .success(
                WatchMemoCommand(userId: userId, ticker: ticker, memo: memo, provider: text(body.provider, max: 64)))
        }
    }

    /// Optional text: trimmed, empty → nil, cut to `max` characters.
    static func text(_ raw: String?, max: Int) -> String? {
        raw?.trimmingCharacters(in: .whitespacesAndNewlines).nilIfEmpty.map { String($0.prefix(max)) }
    }

    /// An absolute http(s) URL of at most 2048 bytes.
    static func articleURL(_ raw: String?) -> String? {
        guard let url = raw?.trimmingCharacters(in: .whitespaces), (1...2048).contains(url.utf8.count),
            let parsed = URLComponents(string: url), let scheme = parsed.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = parsed.host, !host.isEmpty, !url.contains("\0")
        else { return nil }
        return url
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
