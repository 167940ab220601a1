import BriefsCore
import Contracts
import Foundation
import Kafka
import MarketData
import Messaging
import Runtime
import Scheduling
import ServiceKit

/// The scheduled commands on Briefs' topic: "generate the daily briefs" and "scan default-list movers". A command
/// without a user id is expanded into one command per user with default-list tickers, keyed by the user id, so
/// the consumer group spreads users over every replica; a per-user command does that user's work. Redelivery and
/// duplicate expansions are harmless: briefs come from the shared cache and every push is claimed once per slot.
struct ScheduledRuns: Sendable {
    static let pageSize = 1000
    static let moverJob = "watchlist_mover.push"

    let store: WatchlistStore
    let briefs: DailyBriefs
    let market: MarketDataClient
    let claims: SlotClaims
    let context: ServiceContext

    func dailyBriefs(_ command: GenerateDailyBriefsCommand, deadline: ContinuousClock.Instant) async throws -> Reply {
        guard let userId = command.userId else {
            let users = try await expand(name: GenerateDailyBriefsCommand.name) {
                GenerateDailyBriefsCommand(userId: $0)
            }
            context.logger.info("daily briefs expanded", [LogKeys.users: .int(users)])
            return Reply.json(202, ["users": users])
        }
        let ran = try await briefs.morningRun(userId: userId, deadline: deadline)
        return Reply.json(200, ["skipped": !ran])
    }

    func movers(_ command: ScanWatchlistMoversCommand) async throws -> Reply {
        guard let userId = command.userId else {
            let users = try await expand(name: ScanWatchlistMoversCommand.name) {
                ScanWatchlistMoversCommand(userId: $0)
            }
            return Reply.json(202, ["users": users])
        }
        guard let (_, entries) = try await store.listWithEntries(userId: userId, listId: nil) else {
            return Reply.json(200, ["due": 0])
        }
        let market = self.market
        let day = BriefsCalendar.day(Date())
        var due: [(ticker: String, body: [UInt8])] = []
        for entry in entries {
            guard let quote = await market.quote(entry.ticker), WatchlistRules.isMover(quote),
                let body = try? JSONEncoder().encode(
                    WatchlistRules.moverPush(userId: userId, quote: quote, ticker: entry.ticker, day: day))
            else { continue }
            due.append((entry.ticker, Array(body)))
        }
        // The pushes go out after the reply, retried until each is published or found done (the offset waits).
        let (claims, context, job) = (self.claims, self.context, Self.moverJob)
        let pushes = due
        return Reply.json(200, ["due": pushes.count]).then {
            for push in pushes {
                let outcome = try await claims.once(
                    job: job, slot: "\(day):\(userId):\(push.ticker)", lease: .seconds(60),
                    deadline: ContinuousClock.now + .seconds(5)
                ) {
                    await publishRetrying(context: context, topic: Topics.pushRequests, key: userId, value: push.body)
                }
                if outcome == .failed || outcome == .stillHeld {
                    throw PushNotDelivered(slot: "\(job) \(day):\(userId):\(push.ticker)")
                }
            }
        }
    }

    /// Publishes `make(userId)` as command `name` for every user `users(after, limit)` pages through (by default
    /// those with default-list tickers), each page's commands at once. Throws (and the failure is logged) when a
    /// command could not be published.
    func expand<C: Encodable & Sendable>(
        name: String, users page: (@Sendable (String, Int) async throws -> [String])? = nil,
        _ make: @escaping @Sendable (String) -> C
    ) async throws -> Int {
        var after = ""
        var total = 0
        let (context, store) = (self.context, self.store)
        let page = page ?? { try await store.usersWithDefaultTickers(after: $0, limit: $1) }
        while true {
            let users = try await page(after, Self.pageSize)
            guard let lastUser = users.last else { return total }
            let failures = await withTaskGroup(of: Bool.self) { group in
                for user in users {
                    group.addTask {
                        guard let body = try? JSONEncoder().encode(make(user)) else { return false }
                        return await publishRetrying(
                            context: context, topic: ServiceName.briefs.commandTopic, key: user, value: Array(body),
                            headers: [KafkaHeader(MessageHeaders.command, name)])
                    }
                }
                return await group.reduce(0) { $0 + ($1 ? 0 : 1) }
            }
            guard failures == 0 else { throw ExpansionError(failed: failures) }
            total += users.count
            after = lastUser
        }
    }

    struct ExpansionError: Error, CustomStringConvertible {
        let failed: Int
        var description: String { "\(failed) per-user commands could not be published" }
    }
}
