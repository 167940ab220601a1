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

    public init(_ key: String, _ value: AttributeValue) {
        self.key = key
        self.value = value
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
