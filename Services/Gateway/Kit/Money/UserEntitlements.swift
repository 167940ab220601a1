import MoneyCore
import Postgres

/// Where the quota guard and `GET /v1/entitlements` read a caller's entitlement: the same numbers for both.
protocol EntitlementSource: Sendable {
    /// The entitlement of a signed-in user (`userId`), else of an anonymous device, else of nobody.
    func entitlement(userId: String?, deviceId: String?) async throws -> EntitlementState
}

extension UserStore: EntitlementSource {
    func entitlement(userId: String?, deviceId: String?) async throws -> EntitlementState {
        let facts: AccountFacts? =
            if let userId { try await accountFacts(userId: userId) ?? AccountFacts() } else { nil }
        if let facts, facts.freeForever || facts.subscribed { return EntitlementState(account: facts, used: 0) }
        return EntitlementState(account: facts, used: try await usage(userId: userId, deviceId: deviceId))
    }

    /// What decides a user's entitlement; nil when there is no such user.
    func accountFacts(userId: String) async throws -> AccountFacts? {
        guard
            let row = try await db.query(
                """
                SELECT email, free_forever, plan, 'admin' = ANY(scopes) AS admin, stripe_subscription_id,
                       apple_original_transaction_id
                FROM gateway.users WHERE id = \(userId)
                """
            ).first
        else { return nil }
        let domain = row.string("email")?.split(separator: "@").last.map(String.init) ?? ""
        return AccountFacts(
            storedPlan: row.string("plan").flatMap(Plan.init(rawValue:)) ?? .none,
            freeForeverGrant: row.bool("free_forever") ?? false,
            internalAccount: row.bool("admin") == true || freeForeverDomains.contains(domain),
            stripeSubscriptionId: row.string("stripe_subscription_id"),
            appleOriginalTransactionId: row.string("apple_original_transaction_id"))
    }
}
