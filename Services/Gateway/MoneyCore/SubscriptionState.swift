/// One Stripe subscription's last applied state, so late or repeated deliveries never move it backwards.
public struct SubscriptionState: Sendable, Equatable {
    public var change: SubscriptionChange
    /// The `created` of the event that set it.
    public var at: Int64

    public init(change: SubscriptionChange, at: Int64) {
        self.change = change
        self.at = at
    }

    /// What applying `change` from an event created at `at` does to a subscription in `current` (nil: never
    /// seen): the new state, or nil when the event is stale and changes nothing. An ended subscription stays
    /// ended; an older event never overrides a newer one; at the same second, `end` beats `activate` beats
    /// `lapse` (Stripe stamps seconds, and a checkout and its subscription's first update often share one).
    public static func apply(_ change: SubscriptionChange, at: Int64, to current: SubscriptionState?)
        -> SubscriptionState?
    {
        guard let current else { return SubscriptionState(change: change, at: at) }
        if current.change == .end { return nil }
        if at > current.at { return SubscriptionState(change: change, at: at) }
        if at == current.at, rank(change) > rank(current.change) { return SubscriptionState(change: change, at: at) }
        return nil
    }

    private static func rank(_ change: SubscriptionChange) -> Int {
        switch change {
        case .lapse: 0
        case .activate: 1
        case .end: 2
        }
    }
}
