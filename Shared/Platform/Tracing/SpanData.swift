/// What a span is to its peers (OpenTelemetry `SpanKind`; raw values as OTLP numbers them).
public enum SpanKind: Int, Sendable {
    case `internal` = 1
    case server = 2
    case client = 3
    case producer = 4
    case consumer = 5
}

/// An attribute's value: the scalar kinds OTLP's `AnyValue` carries.
public enum AttributeValue: Equatable, Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
}

/// One key and value on a span, event or resource.
public struct Attribute: Equatable, Sendable {
    public let key: String
    public let value: AttributeValue
    /// What the redaction rule already decided about this attribute; `Redaction.apply` decides the rest.
    let vetting: Redaction.Vetting

    public init(_ key: String, _ value: AttributeValue) {
        self.init(key, value, vetting: .none)
    }

    /// An attribute under a key constant, whose verdict the rule gave once, when the constant was made.
    public init(_ key: AttributeKey, _ value: AttributeValue) {
        self.init(key.name, value, vetting: key.isAllowed ? .keyAllowed : .keyDenied)
    }

    init(_ key: String, _ value: AttributeValue, vetting: Redaction.Vetting) {
        self.key = key
        self.value = value
        self.vetting = vetting
    }

    /// Key and value; how far the attribute was vetted is not part of what it says.
    public static func == (a: Attribute, b: Attribute) -> Bool { a.key == b.key && a.value == b.value }
}

/// An attribute key made once (a code constant): the redaction rule decides at once whether attributes under it may
/// be exported, instead of at every span's end.
public struct AttributeKey: Sendable {
    public let name: String
    let isAllowed: Bool

    public init(_ name: String) {
        self.name = name
        self.isAllowed = Redaction.allows(key: name)
    }
}

/// The OpenTelemetry semantic-convention keys the project records on hot paths.
extension AttributeKey {
    public static let httpRequestMethod = AttributeKey("http.request.method")
    public static let httpRoute = AttributeKey("http.route")
    public static let httpResponseStatusCode = AttributeKey("http.response.status_code")
    public static let messagingSystem = AttributeKey("messaging.system")
    public static let messagingDestinationName = AttributeKey("messaging.destination.name")
    public static let messagingOperationType = AttributeKey("messaging.operation.type")
    public static let messagingConsumerGroupName = AttributeKey("messaging.consumer.group.name")
    public static let messagingPartitionID = AttributeKey("messaging.destination.partition.id")
    public static let messagingKafkaOffset = AttributeKey("messaging.kafka.offset")
    public static let dbSystemName = AttributeKey("db.system.name")
    public static let dbOperationName = AttributeKey("db.operation.name")
}

/// The constant part of a span started again and again (a route's server span, a topic's producer span): its name
/// and attributes, put through the redaction rule once when the template is made instead of at every span's end.
public struct SpanTemplate: Sendable {
    /// The name, already scrubbed.
    public let name: String
    public let kind: SpanKind
    /// The attributes the rule kept, marked clean.
    let attributes: [Attribute]
    /// Attributes the rule removed.
    let droppedAttributes: Int

    public init(_ name: String, kind: SpanKind, attributes: [Attribute] = []) {
        self.name = Redaction.scrub(name)
        self.kind = kind
        (self.attributes, self.droppedAttributes) = Redaction.vetted(attributes)
    }
}

/// A point in time inside a span (`exception` for errors).
public struct SpanEvent: Equatable, Sendable {
    public let name: String
    public let timeUnixNano: UInt64
    public let attributes: [Attribute]
}

/// How a span ended (OTLP `Status.StatusCode`); an error carries a generic description.
public enum SpanStatus: Equatable, Sendable {
    case unset
    case ok
    case error(String)
}

/// A finished, redacted span as the exporter sends it.
public struct SpanData: Equatable, Sendable {
    public let context: TraceContext
    public let parentSpanID: SpanID?
    public let name: String
    public let kind: SpanKind
    public let startUnixNano: UInt64
    public let endUnixNano: UInt64
    public let attributes: [Attribute]
    public let events: [SpanEvent]
    public let status: SpanStatus
    /// Attributes the redaction rule removed.
    public let droppedAttributes: Int
}
