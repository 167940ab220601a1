import BriefsCore
import Contracts
import Foundation
import MarketData
import Messaging
import Resolver
import Runtime
import ServiceKit

/// The watchlist routes of docs/COMPATIBILITY.md#watchlists as Briefs answers them, owner-scoped: a list id that is not
/// the caller's answers 404. Every change publishes `mapvest.watchlist.changed` after the reply.
struct WatchlistCommands: Sendable {
    let store: WatchlistStore
    let tickers: TickerCheck
    let context: ServiceContext

    func lists(_ command: WatchListCommand) async throws -> Reply {
        .json(200, WatchListsResponse(lists: try await store.lists(userId: command.userId)))
    }

    func createList(_ command: WatchListNameCommand) async throws -> Reply {
        let list = try await store.createList(userId: command.userId, name: command.name)
        var shown = list
        shown.tickerCount = 0
        return changed(.json(200, WatchListResponse(list: shown)), "list_created", command.userId, listId: list.id)
    }

    func renameList(_ command: WatchListNameCommand) async throws -> Reply {
        guard let listId = command.listId,
            let list = try await store.renameList(userId: command.userId, listId: listId, name: command.name)
        else { return .error(.listNotFound) }
        return changed(.json(200, WatchListResponse(list: list)), "list_renamed", command.userId, listId: list.id)
    }

    func setDefault(_ command: WatchListCommand) async throws -> Reply {
        guard let listId = command.listId, let list = try await store.setDefault(userId: command.userId, listId: listId)
        else { return .error(.listNotFound) }
        return changed(
            .json(200, WatchListResponse(list: list)), "default_changed", command.userId, listId: list.id,
            defaultListId: list.id)
    }

    func deleteList(_ command: WatchListCommand) async throws -> Reply {
        guard let listId = command.listId else { return .error(.listNotFound) }
        switch try await store.deleteList(userId: command.userId, listId: listId) {
        case .deleted: return changed(Reply(status: 204, body: []), "list_deleted", command.userId, listId: listId)
        case .isDefault: return .error(400, "cannot delete default list")
        case .notFound: return .error(.listNotFound)
        }
    }

    /// Sector composition; never a 500 — a failed read is an empty summary.
    func summary(_ command: WatchListCommand) async -> Reply {
        let now = Timestamp.iso8601(Date())
        do {
            guard let (_, entries) = try await store.listWithEntries(userId: command.userId, listId: command.listId)
            else { return .error(.listNotFound) }
            return .json(200, WatchlistRules.summary(entries, updatedAt: now))
        } catch {
            context.logger.warning("list summary failed", [LogKeys.error: .string("\(error)")])
            return .json(200, WatchlistRules.emptySummary(updatedAt: now))
        }
    }

    func move(_ command: WatchMoveCommand) async throws -> Reply {
        switch try await store.move(
            userId: command.userId, ticker: command.ticker, from: command.fromListId, to: command.toListId)
        {
        case .moved:
            return changed(
                Reply(status: 204, body: []), "entry_moved", command.userId, listId: command.toListId,
                ticker: command.ticker)
        case .listNotFound: return .error(.listNotFound)
        case .tickerNotFound: return .error(.tickerNotInWatchlist)
        }
    }

    func entries(_ command: WatchListCommand) async throws -> Reply {
        guard let (_, entries) = try await store.listWithEntries(userId: command.userId, listId: command.listId)
        else { return .error(.listNotFound) }
        return .json(200, WatchEntriesResponse(items: entries))
    }

    /// Validates by quote, then by comparables (each within its budget), and saves either way; `unresolved` when
    /// neither confirmed the ticker.
    func add(_ command: WatchAddCommand, deadline: ContinuousClock.Instant) async throws -> Reply {
        let defaultList = try await store.defaultList(userId: command.userId)
        if let listId = command.listId, listId != defaultList.id,
            try await store.listWithEntries(userId: command.userId, listId: listId) == nil
        {
            return .error(.listNotFound)
        }
        let check = await tickers.check(command.ticker, deadline: deadline)
        let entry = try await store.upsert(
            command, ticker: command.ticker, name: command.name ?? check.name, newListId: defaultList.id)
        return changed(
            .json(200, WatchAddResponse(entry: entry, unresolved: !check.confirmed)), "entry_added", command.userId,
            listId: entry.listId, ticker: entry.ticker, defaultListId: defaultList.id)
    }

    func remove(_ command: WatchTickerCommand) async throws -> Reply {
        let removed = try await store.remove(userId: command.userId, ticker: command.ticker)
        let reply = Reply.json(200, WatchRemoveResponse(removed: removed != nil))
        guard let listId = removed else { return reply }
        return changed(reply, "entry_removed", command.userId, listId: listId, ticker: command.ticker)
    }

    func memo(_ command: WatchMemoCommand) async throws -> Reply {
        guard
            let entry = try await store.attachMemo(
                userId: command.userId, ticker: command.ticker, memo: command.memo, provider: command.provider)
        else { return .error(.tickerNotInWatchlist) }
        return changed(
            .json(200, WatchEntryResponse(entry: entry)), "memo_attached", command.userId, listId: entry.listId,
            ticker: entry.ticker)
    }

    /// Identify's question: which of these tickers are on the default list.
    func contains(_ command: WatchContainsCommand) async throws -> Reply {
        .json(
            200,
            WatchContainsReply(
                watchlisted: try await store.onDefaultList(userId: command.userId, tickers: command.tickers)))
    }

    /// `reply`, then the `mapvest.watchlist.changed` event once it is out.
    private func changed(
        _ reply: Reply, _ change: String, _ userId: String, listId: String?, ticker: String? = nil,
        defaultListId: String? = nil
    ) -> Reply {
        let context = self.context
        let event = WatchlistChangedEvent(
            change: change, userId: userId, listId: listId, ticker: ticker, defaultListId: defaultListId)
        return reply.then {
            try await context.emit(
                type: WatchlistChangedEvent.type, schemaVersion: WatchlistChangedEvent.schemaVersion, key: userId,
                data: event)
        }
    }
}

/// Whether a ticker is real, as `POST /v1/watchlist/add` asks (docs/COMPATIBILITY.md#watchlists): a quote within 3.5 s,
/// else comparables for it within 3.5 s — through the shared market-data and resolver modules, both bounded by the
/// command's deadline.
struct TickerCheck: Sendable {
    static let stepBudget: Duration = .milliseconds(3500)
    /// Kept back from the deadline for the write and the reply.
    static let reserve: Duration = .milliseconds(500)

    let market: MarketDataClient
    let comparables: ComparableResolver

    struct Result: Sendable {
        var confirmed: Bool
        /// The first comparable's name, when comparables confirmed it.
        var name: String?
    }

    func check(_ ticker: String, deadline: ContinuousClock.Instant) async -> Result {
        let market = self.market
        if let quote = await withTimeLimit(budget(deadline), { await market.quote(ticker) }), quote != nil {
            return Result(confirmed: true)
        }
        let comparables = self.comparables
        let found =
            await withTimeLimit(budget(deadline)) { await comparables.resolve(brand: ticker, hintSector: nil) } ?? []
        return Result(confirmed: !found.isEmpty, name: found.first?.name)
    }

    private func budget(_ deadline: ContinuousClock.Instant) -> Duration {
        max(.zero, min(Self.stepBudget, deadline - ContinuousClock.now - Self.reserve))
    }
}
