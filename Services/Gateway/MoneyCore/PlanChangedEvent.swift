/// `mapvest.plan.changed` (schema 1): a user's stored plan moved, by a payment channel. No email, no payment ids
/// beyond the channel's subscription reference.
public struct PlanChangedEvent: Codable, Sendable, Equatable {
    public static let type = "mapvest.plan.changed"
    public static let schemaVersion = 1

    public var userId: String
    public var plan: Plan
    public var previousPlan: Plan
    /// `stripe` or `apple`.
    public var channel: String
    /// The Stripe subscription id or the Apple original transaction id that moved it.
    public var reference: String

    public init(userId: String, plan: Plan, previousPlan: Plan, channel: String, reference: String) {
        self.userId = userId
        self.plan = plan
        self.previousPlan = previousPlan
        self.channel = channel
        self.reference = reference
    }
}
