import MoneyCore
import Postgres
import ServiceKit

/// What binding an App Store subscription to a user did.
enum AppleBinding: Sendable, Equatable {
    case bound
    /// The original transaction already belongs to another user.
    case takenByAnotherUser
}

/// The App Store side of users' plans.
protocol AppleAccounts: Sendable {
    func bind(userId: String, originalTransactionId: String) async throws -> AppleBinding
    /// Clears the binding when this user holds this original transaction (expired or revoked).
    func unbind(userId: String, originalTransactionId: String) async throws
}

/// `gateway.users.apple_original_transaction_id` (unique), with a plan change recorded when the plan moves.
struct AppleLedger: AppleAccounts {
    let db: PostgresPool
    let changes: PlanChanges

    func bind(userId: String, originalTransactionId: String) async throws -> AppleBinding {
        let changes = self.changes
        let (binding, staged) = try await db.transaction { connection -> (AppleBinding, [OutboxEntry]) in
            let holder = try await connection.query(
                """
                SELECT id FROM gateway.users WHERE apple_original_transaction_id = \(originalTransactionId) FOR UPDATE
                """
            ).first?.string("id")
            if let holder, holder != userId { return (.takenByAnotherUser, []) }
            let previous = try await Self.plan(userId, on: connection, lock: true)
            _ = try await connection.execute(
                """
                UPDATE gateway.users SET apple_original_transaction_id = \(originalTransactionId), plan = 'subscribed'
                WHERE id = \(userId)
                """)
            guard previous != .subscribed else { return (.bound, []) }
            let staged = try await changes.record(
                PlanChangedEvent(
                    userId: userId, plan: .subscribed, previousPlan: previous, channel: "apple",
                    reference: originalTransactionId), on: connection)
            return (.bound, [staged])
        }
        await changes.relay(staged)
        return binding
    }

    func unbind(userId: String, originalTransactionId: String) async throws {
        let changes = self.changes
        let staged = try await db.transaction { connection -> [OutboxEntry] in
            let previous = try await Self.plan(userId, on: connection, lock: true)
            let cleared = try await connection.execute(
                """
                UPDATE gateway.users SET apple_original_transaction_id = NULL,
                    plan = CASE WHEN stripe_subscription_id IS NULL THEN 'none' ELSE 'subscribed' END
                WHERE id = \(userId) AND apple_original_transaction_id = \(originalTransactionId)
                """)
            let plan = try await Self.plan(userId, on: connection, lock: false)
            guard cleared > 0, plan != previous else { return [] }
            return [
                try await changes.record(
                    PlanChangedEvent(
                        userId: userId, plan: plan, previousPlan: previous, channel: "apple",
                        reference: originalTransactionId), on: connection)
            ]
        }
        await changes.relay(staged)
    }

    private static func plan(_ userId: String, on connection: PostgresConnection, lock: Bool) async throws -> Plan {
        let rows =
            lock
            ? try await connection.query("SELECT plan FROM gateway.users WHERE id = \(userId) FOR UPDATE")
            : try await connection.query("SELECT plan FROM gateway.users WHERE id = \(userId)")
        return rows.first?.string("plan").flatMap(Plan.init(rawValue:)) ?? .none
    }
}
