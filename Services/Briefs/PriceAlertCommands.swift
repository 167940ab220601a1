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
            return .error(404, "not found")
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
        let day = DailyBriefs.day(Date())
        let push = Self.push(userId: userId, alerts: fired, day: day)
        let body = Array(try JSONEncoder().encode(push))
        // One push per user per scan window (the 08:00 and 16:00 scans are 8 h apart, so they fall in different
        // 8-hour UTC windows): duplicate scans of one slot (a scheduler and an outside producer, or a redelivery) that
        // saw different quotes share the slot, and only the first pushes.
        let hour =
            Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC") ?? .current, from: Date())
            .hour ?? 0
        let slot = "\(day):\(userId):w\(hour / 8)"
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
        return active.filter { alert in
            guard let quote = quotes[alert.ticker] else { return false }
            return alert.isTriggered(price: quote.price, changePct: quote.changePct)
        }
    }

    /// `price_alerts` (docs/COMPATIBILITY.md#push-events): `Price alert: $T` with the alert's description, or `Price
    /// alerts: N tickers moved` with up to three cashtags and `+k more`; one dedupe key
    /// `price_alerts-<YYYYMMDD>-<alertId>` per alert.
    static func push(userId: String, alerts: [PriceAlert], day: String) -> PushRequest {
        let title: String
        let body: String
        if alerts.count == 1, let only = alerts.first {
            title = "Price alert: $\(only.ticker)"
            body = describe(only)
        } else {
            title = "Price alerts: \(alerts.count) tickers moved"
            body =
                alerts.prefix(3).map { "$\($0.ticker)" }.joined(separator: ", ")
                + (alerts.count > 3 ? " +\(alerts.count - 3) more" : "")
        }
        let ids = alerts.map(\.id).sorted().joined(separator: ",")
        return PushRequest(
            id: "price_alerts-\(day)-" + Digest.hex(Digest.sha256(Array("\(userId):\(ids)".utf8))).prefix(24),
            userIds: [userId], eventKey: .priceAlerts, eventKind: "price_alert", title: title, body: body,
            data: ["kind": .string("price_alert"), "tickers": .array(alerts.map { .string($0.ticker) })],
            target: PushTarget(type: "alerts"),
            dedupe: alerts.map { PushDedupe(slot: "price_alerts", key: "price_alerts-\(day)-\($0.id)") })
    }

    static func describe(_ alert: PriceAlert) -> String {
        switch alert.kind {
        case .priceAbove: return "$\(alert.ticker) crossed above $\(String(format: "%.2f", alert.threshold))"
        case .priceBelow: return "$\(alert.ticker) fell below $\(String(format: "%.2f", alert.threshold))"
        case .pctMove: return "$\(alert.ticker) moved by \(String(format: "%.1f", abs(alert.threshold)))% or more"
        }
    }
}

extension PriceAlertCommands {
    /// The scan at 08:00 and 16:00 scheduler-local (docs/COMPATIBILITY.md#movement), on Briefs' own topic with no user
    /// id.
    static var jobs: [ScheduledCommand] {
        let body = Array((try? JSONEncoder().encode(ScanPriceAlertsCommand())) ?? Data("{}".utf8))
        return [8, 16].map { hour in
            ScheduledCommand(
                job: "briefs.price_alerts.\(hour)", schedule: .daily(hour: hour, minute: 0),
                topic: ServiceName.briefs.commandTopic, command: ScanPriceAlertsCommand.name, key: "all", body: body)
        }
    }
}
