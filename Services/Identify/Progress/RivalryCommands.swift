import Contracts
import Foundation
import IdentifyCore
import Messaging
import Resolver
import Runtime

/// The rivalries routes, answered beside the XP ledger that pays their picks: list, create (the rival from the
/// comparables pipeline when none is sent, never a guess), pick for the open round, delete. Every success answers
/// the whole list, newest first.
struct RivalryCommands: Sendable {
    let store: RivalryStore
    let comparables: ComparableResolver
    let clock: @Sendable () -> Date

    func list(_ command: RivalryUserCommand) async throws -> Reply {
        .json(200, RivalriesResponse(rivalries: try await store.list(userId: command.userId)))
    }

    /// Creates the matchup (201 with the list). `deadline` bounds the comparables lookup along with its own 12 s.
    func create(_ command: CreateRivalryCommand, deadline: ContinuousClock.Instant) async throws -> Reply {
        let symbols: (ticker: String, rival: String?)
        switch RivalryRules.symbols(ticker: command.ticker, rivalTicker: command.rivalTicker) {
        case .failure(let error): return .error(error)
        case .success(let checked): symbols = checked
        }
        let rival: String
        if let given = symbols.rival {
            rival = given
        } else {
            let limit = min(RivalryRules.resolveTimeout, deadline - .milliseconds(500) - ContinuousClock.now)
            let comparables = self.comparables
            let found = await withTimeLimit(max(limit, .zero)) {
                await comparables.resolve(brand: symbols.ticker, hintSector: nil)
            }
            guard let picked = RivalryRules.rival(for: symbols.ticker, among: found ?? []) else {
                return .error(RivalryRules.noComparable)
            }
            rival = picked
        }
        switch try await store.create(userId: command.userId, ticker: symbols.ticker, rival: rival, now: clock()) {
        case .created: return .json(201, RivalriesResponse(rivalries: try await store.list(userId: command.userId)))
        case .duplicate(let id): return .json(409, RivalryConflict(rivalryId: id))
        case .ownRival: return .error(RivalryRules.ownRival)
        case .tooMany: return .error(RivalryRules.tooMany)
        }
    }

    func pick(_ command: RivalryPickCommand) async throws -> Reply {
        guard try await store.setPick(userId: command.userId, id: command.rivalryId, pick: command.pick) else {
            return .error(RivalryRules.notFound)
        }
        return try await list(RivalryUserCommand(userId: command.userId))
    }

    /// 204 with no body.
    func delete(_ command: RivalryUserCommand) async throws -> Reply {
        guard let id = command.rivalryId, try await store.delete(userId: command.userId, id: id) else {
            return .error(RivalryRules.notFound)
        }
        return Reply(status: 204, body: [])
    }
}
