import MoneyCore
import Postgres
import ServiceKit

/// Records a plan change in the transaction that made it: an admin-log entry (`plan_changed`) and a staged
/// `mapvest.plan.changed` event, relayed after COMMIT (the outbox relay publishes whatever that leaves).
struct PlanChanges: Sendable {
    let db: PostgresPool
    let outbox: Outbox
    /// Wraps the payload as the binary's CloudEvent entry.
    let entry: @Sendable (PlanChangedEvent) throws -> OutboxEntry

    func record(_ change: PlanChangedEvent, on connection: PostgresConnection) async throws -> OutboxEntry {
        try await AdminLog.append(
            on: connection, db: db, kind: "plan_changed", actor: nil, subject: change.userId,
            detail: [
                "plan": change.plan.rawValue, "previousPlan": change.previousPlan.rawValue, "channel": change.channel,
                "reference": change.reference,
            ])
        let staged = try entry(change)
        try await outbox.stage(staged, on: connection)
        return staged
    }

    func relay(_ entries: [OutboxEntry]) async {
        guard !entries.isEmpty else { return }
        await outbox.relay(entries, deadline: .now + .seconds(2))
    }
}
