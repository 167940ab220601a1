import FoundationEssentials

/// The part of a Stripe event the webhook acts on, read from the verified raw body.
public struct StripeEvent: Sendable, Equatable {
    public var id: String
    public var type: String
    /// Unix seconds when Stripe created the event: the order of events about one subscription.
    public var created: Int64
    public var object: StripeObject

    /// Reads an event; nil when the body is not an event (no id, type or object).
    public static func decode(_ body: [UInt8]) -> StripeEvent? {
        guard let wire = try? JSONDecoder().decode(Wire.self, from: Data(body)), !wire.id.isEmpty else { return nil }
        return StripeEvent(id: wire.id, type: wire.type, created: wire.created ?? 0, object: wire.data.object)
    }

    private struct Wire: Decodable {
        var id: String
        var type: String
        var created: Int64?
        var data: DataField
        struct DataField: Decodable { var object: StripeObject }
    }
}

/// A checkout session or a subscription, as far as the webhook reads them.
public struct StripeObject: Decodable, Sendable, Equatable {
    public var id: String?
    public var mode: String?
    public var status: String?
    public var customer: String?
    public var subscription: String?
    public var clientReferenceId: String?
    public var metadata: [String: String]?

    public init(
        id: String? = nil, mode: String? = nil, status: String? = nil, customer: String? = nil,
        subscription: String? = nil, clientReferenceId: String? = nil, metadata: [String: String]? = nil
    ) {
        self.id = id
        self.mode = mode
        self.status = status
        self.customer = customer
        self.subscription = subscription
        self.clientReferenceId = clientReferenceId
        self.metadata = metadata
    }

    enum CodingKeys: String, CodingKey {
        case id, mode, status, customer, subscription, metadata
        case clientReferenceId = "client_reference_id"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try? c.decodeIfPresent(String.self, forKey: .id)
        mode = try? c.decodeIfPresent(String.self, forKey: .mode)
        status = try? c.decodeIfPresent(String.self, forKey: .status)
        customer = try? c.decodeIfPresent(String.self, forKey: .customer)
        subscription = try? c.decodeIfPresent(String.self, forKey: .subscription)
        clientReferenceId = try? c.decodeIfPresent(String.self, forKey: .clientReferenceId)
        metadata = try? c.decodeIfPresent([String: String].self, forKey: .metadata)
    }
}

/// What an event asks of one subscription.
public enum SubscriptionChange: String, Sendable, Equatable {
    /// Paid up (`active`/`trialing`, or a completed subscription checkout).
    case activate
    /// Any other live status (`past_due`, `unpaid`, `incomplete`…): not entitled now, may come back.
    case lapse
    /// Deleted: final for this subscription.
    case end
}

/// The webhook's reading of an event: which subscription changes how, and whom it belongs to.
public struct BillingInstruction: Sendable, Equatable {
    public var change: SubscriptionChange
    public var subscriptionId: String
    public var customerId: String?
    /// `metadata.userId`, else `client_reference_id`; nil → find the user by customer id.
    public var userId: String?

    /// The instruction for an event, or nil when the event is ignored.
    public init?(_ event: StripeEvent) {
        let object = event.object
        switch event.type {
        case "checkout.session.completed":
            guard object.mode == "subscription", let subscription = object.subscription else { return nil }
            change = .activate
            subscriptionId = subscription
        case "customer.subscription.created", "customer.subscription.updated":
            guard let id = object.id else { return nil }
            change = object.status == "active" || object.status == "trialing" ? .activate : .lapse
            subscriptionId = id
        case "customer.subscription.deleted":
            guard let id = object.id else { return nil }
            change = .end
            subscriptionId = id
        default:
            return nil
        }
        customerId = object.customer
        let fromMetadata = object.metadata?["userId"].flatMap { $0.isEmpty ? nil : $0 }
        userId = fromMetadata ?? object.clientReferenceId.flatMap { $0.isEmpty ? nil : $0 }
    }
}
