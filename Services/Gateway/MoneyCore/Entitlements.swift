/// A user's plan as the API shows it. `free_trial` is part of the vocabulary but never set.
public enum Plan: String, Codable, Sendable, Equatable {
    case none
    case freeTrial = "free_trial"
    case freeForever = "free_forever"
    case subscribed
}

/// What the store knows about a signed-in account that decides its entitlement.
public struct AccountFacts: Sendable, Equatable {
    /// The stored plan column (`none` or `subscribed`).
    public var storedPlan: Plan
    /// The manual admin grant.
    public var freeForeverGrant: Bool
    /// Admin scope, or an email under the internal allow-rule.
    public var internalAccount: Bool
    public var stripeSubscriptionId: String?
    public var appleOriginalTransactionId: String?

    public init(
        storedPlan: Plan = .none, freeForeverGrant: Bool = false, internalAccount: Bool = false,
        stripeSubscriptionId: String? = nil, appleOriginalTransactionId: String? = nil
    ) {
        self.storedPlan = storedPlan
        self.freeForeverGrant = freeForeverGrant
        self.internalAccount = internalAccount
        self.stripeSubscriptionId = stripeSubscriptionId
        self.appleOriginalTransactionId = appleOriginalTransactionId
    }

    /// Unlimited without paying: a grant or an internal account.
    public var freeForever: Bool { freeForeverGrant || internalAccount }
    /// Paying through any channel.
    public var subscribed: Bool {
        storedPlan == .subscribed || stripeSubscriptionId != nil || appleOriginalTransactionId != nil
    }
}

/// The entitlement the paywall reads and the quota guard enforces: one computation for both.
public struct EntitlementState: Codable, Sendable, Equatable {
    /// The free tier: lifetime generations per identity.
    public static let freeLimit = 50
    /// The monthly price shown on the paywall.
    public static let priceUsd = 19.99
    public static let interval = "month"

    public var plan: Plan
    public var remaining: Int
    public var limit: Int
    public var freeForever: Bool
    public var subscribed: Bool
    public var canGenerate: Bool
    public var canPersist: Bool

    /// The state for a caller: `account` nil for an anonymous device (or nobody), `used` the generations counted
    /// for that identity.
    public init(account: AccountFacts?, used: Int) {
        let freeForever = account?.freeForever ?? false
        let subscribed = account?.subscribed ?? false
        let unlimited = freeForever || subscribed
        let remaining = unlimited ? Self.freeLimit : max(0, Self.freeLimit - max(0, used))
        self.plan = freeForever ? .freeForever : (account.map { $0.storedPlan } ?? .none)
        self.remaining = remaining
        self.limit = Self.freeLimit
        self.freeForever = freeForever
        self.subscribed = subscribed
        self.canGenerate = unlimited || remaining > 0
        self.canPersist = account != nil
    }

    /// Whether the quota counts this caller's generations at all.
    public var unlimited: Bool { freeForever || subscribed }
}
