import MoneyCore
import Postgres
import ServiceKit

/// What a verified webhook delivery did.
enum WebhookOutcome: Sendable, Equatable {
    /// The event id was applied before: nothing changes.
    case duplicate
    /// Not an event the plan depends on (recorded, so a redelivery is a duplicate).
    case ignored
    /// Older than what the subscription already reflects: recorded, nothing changes.
    case stale
    /// The subscription moved; `userId` is whose plan followed, nil when no user could be found.
    case applied(userId: String?, change: SubscriptionChange)
}

/// The payment facts of users, as billing reads and changes them.
protocol BillingAccounts: Sendable {
    /// The user's Stripe customer id, if a checkout ever completed.
    func stripeCustomer(userId: String) async throws -> String?
    /// Applies a verified event once per event id, in one transaction.
    func apply(_ event: StripeEvent) async throws -> WebhookOutcome
}

/// `gateway.stripe_events`, `gateway.stripe_subscriptions` and the payment columns of `gateway.users`.
struct StripeLedger: BillingAccounts {
    let db: PostgresPool
    let changes: PlanChanges

    func stripeCustomer(userId: String) async throws -> String? {
        try await db.query("SELECT stripe_customer_id FROM gateway.users WHERE id = \(userId)").first?
            .string("stripe_customer_id")
    }

    func apply(_ event: StripeEvent) async throws -> WebhookOutcome {
        let (outcome, staged) = try await transaction(event)
        await changes.relay(staged)
        return outcome
    }

    private func transaction(_ event: StripeEvent) async throws -> (WebhookOutcome, [OutboxEntry]) {
        let changes = self.changes
        return try await db.transaction { connection in
            let fresh = try await connection.query(
                """
                INSERT INTO gateway.stripe_events (id, type) VALUES (\(event.id), \(event.type))
                ON CONFLICT (id) DO NOTHING RETURNING id
                """)
            guard !fresh.isEmpty else { return (.duplicate, []) }
            guard let instruction = BillingInstruction(event) else { return (.ignored, []) }
            let userId = try await Self.user(of: instruction, on: connection)
            // The row exists before it is locked, so concurrent deliveries about one subscription queue on it.
            _ = try await connection.execute(
                """
                INSERT INTO gateway.stripe_subscriptions (id, state, event_created) VALUES (\(instruction.subscriptionId), 'new', -1)
                ON CONFLICT (id) DO NOTHING
                """)
            let row = try await connection.query(
                """
                SELECT state, event_created FROM gateway.stripe_subscriptions
                WHERE id = \(instruction.subscriptionId) FOR UPDATE
                """
            ).first
            let current = row.flatMap { row -> SubscriptionState? in
                guard let change = row.string("state").flatMap(SubscriptionChange.init(rawValue:)),
                    let at = row.int64("event_created")
                else { return nil }
                return SubscriptionState(change: change, at: at)
            }
            guard let next = SubscriptionState.apply(instruction.change, at: event.created, to: current) else {
                return (.stale, [])
            }
            _ = try await connection.execute(
                """
                UPDATE gateway.stripe_subscriptions
                SET state = \(next.change.rawValue), event_created = \(next.at),
                    user_id = COALESCE(\(userId), user_id), customer_id = COALESCE(\(instruction.customerId), customer_id),
                    updated_at = now()
                WHERE id = \(instruction.subscriptionId)
                """)
            guard let userId else { return (.applied(userId: nil, change: next.change), []) }
            let previous =
                try await connection.query("SELECT plan FROM gateway.users WHERE id = \(userId) FOR UPDATE").first?
                .string("plan").flatMap(Plan.init(rawValue:)) ?? .none
            if next.change == .activate {
                _ = try await connection.execute(
                    """
                    UPDATE gateway.users SET plan = 'subscribed', stripe_subscription_id = \(instruction.subscriptionId),
                        stripe_customer_id = COALESCE(\(instruction.customerId), stripe_customer_id)
                    WHERE id = \(userId)
                    """)
            } else {
                // Only the subscription the user is on ends their Stripe plan; the customer id stays for the portal.
                _ = try await connection.execute(
                    """
                    UPDATE gateway.users SET stripe_subscription_id = NULL,
                        plan = CASE WHEN apple_original_transaction_id IS NULL THEN 'none' ELSE 'subscribed' END
                    WHERE id = \(userId)
                      AND (stripe_subscription_id = \(instruction.subscriptionId) OR stripe_subscription_id IS NULL)
                    """)
            }
            let plan =
                try await connection.query("SELECT plan FROM gateway.users WHERE id = \(userId)").first?
                .string("plan").flatMap(Plan.init(rawValue:)) ?? .none
            guard plan != previous else { return (.applied(userId: userId, change: next.change), []) }
            let staged = try await changes.record(
                PlanChangedEvent(
                    userId: userId, plan: plan, previousPlan: previous, channel: "stripe",
                    reference: instruction.subscriptionId), on: connection)
            return (.applied(userId: userId, change: next.change), [staged])
        }
    }

    /// The event's user if it exists, else the user with the event's customer id.
    private static func user(of instruction: BillingInstruction, on connection: PostgresConnection) async throws
        -> String?
    {
        if let userId = instruction.userId,
            let row = try await connection.query("SELECT id FROM gateway.users WHERE id = \(userId)").first
        {
            return row.string("id")
        }
        guard let customer = instruction.customerId else { return nil }
        return try await connection.query(
            "SELECT id FROM gateway.users WHERE stripe_customer_id = \(customer) ORDER BY created_at LIMIT 1"
        ).first?.string("id")
    }
}
