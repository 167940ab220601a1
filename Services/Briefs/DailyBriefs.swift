import BriefsCore
import Contracts
import Foundation
import Kafka
import Messaging
import Redis
import Runtime
import Scheduling
import ServiceKit

/// Mapvest Daily per list (docs/COMPATIBILITY.md#daily-brief, #push-events `daily_brief`): cached in Redis per user +
/// UTC day + sorted tickers and shared by every replica (`RedisSharedCache`: one generation per key across replicas),
/// the last brief per user + tickers kept a week for the pre-filter, and the `daily_brief` push for the default list —
/// at most once per user per UTC day, claimed in `briefs.job_slots` before it is published (the dispatcher's dedupe key
/// is the last line of defence, not the first).
struct DailyBriefs: Sendable {
    static let cacheTTL: Duration = .seconds(24 * 3600)
    static let lastTTL: Duration = .seconds(7 * 24 * 3600)
    static let pushJob = "daily_brief.push"

    let writer: DailyBriefWriter
    let store: WatchlistStore
    let claims: SlotClaims
    let context: ServiceContext
    private let cache: RedisSharedCache<WrittenDailyBrief>
    private let last: RedisSharedCache<WrittenDailyBrief>

    init(
        writer: DailyBriefWriter, store: WatchlistStore, claims: SlotClaims, redis: RedisClient, context: ServiceContext
    ) {
        self.writer = writer
        self.store = store
        self.claims = claims
        self.context = context
        // The lock outlives a whole model cascade, and a replica that lost it waits most of a request budget.
        cache = RedisSharedCache(
            redis: redis, prefix: "mapvest:brief:v1:", lockTTL: .seconds(70), waitForOther: .seconds(25),
            logger: context.logger)
        last = RedisSharedCache(redis: redis, prefix: "mapvest:brief:last:v1:", logger: context.logger)
    }

    /// `GET /v1/watchlist/brief?listId=`: 404 for a list that is not the caller's, else always 200 (a failed list
    /// read is the outage brief, as a failed model is).
    func brief(_ command: WatchListCommand, deadline: ContinuousClock.Instant) async -> Reply {
        let found: (list: WatchList, entries: [WatchEntry])?
        do {
            found = try await store.listWithEntries(userId: command.userId, listId: command.listId)
        } catch {
            context.logger.warning("brief: list read failed", [LogKeys.error: .string("\(error)")])
            return .json(200, DailyBriefRules.outage(Date()))
        }
        guard let (list, entries) = found else { return .error(.listNotFound) }
        let result = await brief(
            userId: command.userId, list: list, entries: entries, scheduled: false, deadline: deadline)
        return .json(200, result.brief).then(result.effects)
    }

    /// The 7 am run for one user: the default list's brief (a cache hit is free) and its push. Users without
    /// default-list tickers are skipped; false when there was nothing to do.
    @discardableResult
    func morningRun(userId: String, deadline: ContinuousClock.Instant) async throws -> Bool {
        guard let (list, entries) = try await store.listWithEntries(userId: userId, listId: nil), !entries.isEmpty
        else { return false }
        let result = await brief(userId: userId, list: list, entries: entries, scheduled: true, deadline: deadline)
        try await result.effects()
        return true
    }

    struct Result: Sendable {
        let brief: DailyBrief
        /// The push and the event, to run after the reply is out; throws when either is not delivered yet (the
        /// command runner retries it, holding the offset).
        let effects: @Sendable () async throws -> Void
    }

    private func brief(
        userId: String, list: WatchList, entries: [WatchEntry], scheduled: Bool, deadline: ContinuousClock.Instant
    ) async -> Result {
        let now = Date()
        guard !entries.isEmpty else { return Result(brief: DailyBriefRules.empty(now), effects: {}) }
        let started = ContinuousClock.now
        let tickers = DailyBriefRules.tickerKey(entries)
        let day = BriefsCalendar.day(now)
        let lastKey = "\(userId)::\(tickers)"
        let (writer, last) = (self.writer, self.last)
        let outcome = await cache.value(
            "\(userId)::\(day)::\(tickers)", ttl: { $0.kind == .outage ? nil : Self.cacheTTL },
            compute: {
                let written = await writer.write(
                    tickers: entries, previous: await last.get(lastKey), deadline: deadline)
                if written.kind == .generated { await last.put(lastKey, written, ttl: Self.lastTTL) }
                return written
            })
        let written = outcome.value
        let fresh = outcome.origin == .computed
        let pushes = DailyBriefRules.pushes(
            isDefault: list.isDefault, kind: written.kind, fresh: fresh, scheduled: scheduled)
        let (claims, context) = (self.claims, self.context)
        let effects: @Sendable () async throws -> Void = {
            let pushed =
                pushes
                ? try await Self.pushOnce(userId: userId, brief: written.brief, claims: claims, context: context)
                : false
            guard fresh else { return }
            try await context.emit(
                type: BriefGeneratedEvent.type, schemaVersion: BriefGeneratedEvent.schemaVersion, key: userId,
                data: BriefGeneratedEvent(
                    userId: userId, listId: list.id, isDefault: list.isDefault, kind: written.kind.rawValue,
                    tickers: entries.count, headlines: written.headlineCount,
                    latencyMs: Int((ContinuousClock.now - started).inMilliseconds), pushed: pushed))
        }
        return Result(brief: written.brief, effects: effects)
    }

    /// Publishes the `daily_brief` push request unless this user already got one today; true when it did now.
    /// Throws when it could be neither published nor found done (the slot is then free for the retry).
    static func pushOnce(userId: String, brief: DailyBrief, claims: SlotClaims, context: ServiceContext) async throws
        -> Bool
    {
        let day = DailyBriefRules.pushDay(brief)
        let body = try JSONEncoder().encode(DailyBriefRules.pushRequest(userId: userId, brief: brief, day: day))
        let outcome = try await claims.once(
            job: pushJob, slot: "\(day):\(userId)", lease: .seconds(60), deadline: ContinuousClock.now + .seconds(90)
        ) {
            await publishRetrying(context: context, topic: Topics.pushRequests, key: userId, value: Array(body))
        }
        switch outcome {
        case .ran: return true
        case .alreadyDone: return false
        case .failed, .stillHeld: throw PushNotDelivered(slot: "\(pushJob) \(day)")
        }
    }
}

/// Publishes, retrying with back-off for up to 2 s; true once the broker acknowledged it. A false leaves the
/// caller's slot released, and the caller throws so its command is retried.
func publishRetrying(
    context: ServiceContext, topic: String, key: String, value: [UInt8], headers: [KafkaHeader] = []
) async -> Bool {
    do {
        try await context.publisher.deliver(
            topic: topic, key: key, value: value, headers: headers, until: ContinuousClock.now + .seconds(2))
        return true
    } catch {
        return false
    }
}

/// A push request neither published nor already done for its slot; the work that wanted it is retried.
struct PushNotDelivered: Error, CustomStringConvertible {
    let slot: String
    var description: String { "push request for \(slot) not delivered yet" }
}
