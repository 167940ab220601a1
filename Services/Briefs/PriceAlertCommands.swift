import BriefsCore
import Contracts
import Crypto
import Foundation
import MarketData
import Messaging
import Runtime
import Scheduling
import ServiceKit

/// The `/v1/alerts` routes and the twice-daily `price_alerts` scan (docs/COMPATIBILITY.md#alerts, #push-events). Quotes
/// come from Briefs' own `MarketDataClient` (the provider cascade and its caches), as the movers scan does. An alert
/// fires once: the check route and the scan both mark it triggered, and only the caller whose update changed the row
/// reports it.
struct PriceAlertCommands: Sendable {
    static let pushJob = "price_alerts.push"

    let store: PriceAlertStore
    let market: MarketDataClient
    let claims: SlotClaims
    let scheduled: ScheduledRuns
    let context: ServiceContext

    /// `requestKey` (the command's correlation id) makes a redelivered create return the alert it made.
    func create(_ command: CreatePriceAlertCommand, requestKey: String?) async throws -> Reply {
        .json(
            200,
            PriceAlertResponse(
                alert: try await store.create(
                    userId: command.userId, ticker: command.ticker, kind: command.kind, threshold: command.threshold,
                    note: command.note, requestKey: requestKey)))
    }

    func list(_ command: PriceAlertUserCommand) async throws -> Reply {
        .json(200, PriceAlertsResponse(alerts: try await store.list(userId: command.userId)))
    }

    func delete(_ command: PriceAlertUserCommand) async throws -> Reply {
        guard let id = command.alertId, try await store.delete(userId: command.userId, id: id) else {
            return .error(.notFound)
        }
        return Reply(status: 204, body: [])
    }

    /// The poll-on-open check: fires and returns the active alerts a fresh quote satisfies. A missing quote is
    /// no signal — an alert never fires on missing data.
    func check(_ command: PriceAlertUserCommand) async throws -> Reply {
        var triggered: [PriceAlert] = []
        for alert in try await firing(userId: command.userId) {
            if let fired = try await store.markTriggered(userId: command.userId, id: alert.id) {
                triggered.append(fired)
            }
        }
        return .json(200, PriceAlertCheckResponse(triggered: triggered))
    }

    /// The scheduled scan. Without a user id it expands into per-user commands; for one user the firing alerts
    /// are pushed as one `price_alerts` request (after the reply, retried until published, claimed once per
    /// alert set and day across replicas) and only then marked triggered, so a crash in between re-finds them
    /// and the claim (or the push's per-alert dedupe keys) keeps the person from a second push.
    func scan(_ command: ScanPriceAlertsCommand) async throws -> Reply {
        guard let userId = command.userId else {
            let store = self.store
            let users = try await scheduled.expand(
                name: ScanPriceAlertsCommand.name,
                users: { try await store.usersWithActiveAlerts(after: $0, limit: $1) }
            ) { ScanPriceAlertsCommand(userId: $0) }
            context.logger.info("price alerts scan expanded", [LogKeys.users: .int(users)])
            return Reply.json(202, ["users": users])
        }
        let fired = try await firing(userId: userId)
        guard !fired.isEmpty else { return Reply.json(200, ["fired": 0]) }
        let now = Date()
        let day = BriefsCalendar.day(now)
        let body = Array(try JSONEncoder().encode(Self.push(userId: userId, alerts: fired, day: day)))
        // Duplicate scans of one window (a scheduler and an outside producer, or a redelivery) that saw different
        // quotes share the slot, and only the first pushes.
        let slot = PriceAlertRules.scanSlot(userId: userId, day: day, utcHour: BriefsCalendar.utcHour(now))
        let (claims, context, store) = (self.claims, self.context, self.store)
        return Reply.json(200, ["fired": fired.count]).then {
            let outcome = try await claims.once(
                job: Self.pushJob, slot: slot, lease: .seconds(60), deadline: ContinuousClock.now + .seconds(5)
            ) {
                await publishRetrying(context: context, topic: Topics.pushRequests, key: userId, value: body)
            }
            switch outcome {
            case .failed, .stillHeld: throw PushNotDelivered(slot: "\(Self.pushJob) \(slot)")
            // Another scan of this window pushed first: its alerts are marked by it; these stay active for the next.
            case .alreadyDone: return
            case .ran: for alert in fired { _ = try await store.markTriggered(userId: userId, id: alert.id) }
            }
        }
    }

    /// The user's active alerts that a fresh quote satisfies, one quote per ticker, fetched concurrently.
    private func firing(userId: String) async throws -> [PriceAlert] {
        let active = try await store.active(userId: userId)
        guard !active.isEmpty else { return [] }
        let market = self.market
        let quotes = await withTaskGroup(of: (String, Quote?).self) { group in
            for ticker in Set(active.map(\.ticker)) { group.addTask { (ticker, await market.quote(ticker)) } }
            return await group.reduce(into: [String: Quote]()) { $0[$1.0] = $1.1 }
        }
        return PriceAlertRules.firing(active, quotes: quotes)
    }

    /// The `price_alerts` push (`PriceAlertRules.push`), its id a digest of the user and the alert ids.
    static func push(userId: String, alerts: [PriceAlert], day: String) -> PushRequest {
        let seed = PriceAlertRules.pushIdSeed(userId: userId, alerts: alerts)
        return PriceAlertRules.push(
            userId: userId, alerts: alerts, day: day,
            id: "price_alerts-\(day)-" + Digest.hex(Digest.sha256(Array(seed.utf8))).prefix(24))
    }
}
