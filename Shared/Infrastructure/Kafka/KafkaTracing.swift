import Runtime
import Tracing

/// Spans around Kafka hops (OpenTelemetry messaging conventions) and the `traceparent` / `tracestate` headers that
/// carry a trace from producer to consumer. Every message a traced task produces gets a producer span and the
/// headers; every consumed message runs its handler in a consumer span continuing the headers' trace. Span names
/// use the topic's metrics label (one name for every gateway's reply topic); the attributes keep the topic. With no
/// tracer installed both pass straight through.
public enum KafkaTracing {
    static func attributes(topic: String, operation: String) -> [Attribute] {
        [
            Attribute("messaging.system", "kafka"), Attribute("messaging.destination.name", .string(topic)),
            Attribute("messaging.operation.type", .string(operation)),
        ]
    }

    static func headers(of span: Span?) -> [KafkaHeader] {
        span?.context.headers.map { KafkaHeader($0.0, $0.1) } ?? []
    }

    static func record(_ delivery: KafkaProducer.Delivery, on span: Span?) {
        span?.setAttribute("messaging.destination.partition.id", .string(String(delivery.partition)))
        span?.setAttribute("messaging.kafka.offset", .int(delivery.offset))
    }

    /// A producer span for a send that is awaited: `body` gets the headers to add.
    static func produce(
        topic: String, isolation: isolated (any Actor)? = #isolation,
        _ body: ([KafkaHeader]) async throws -> KafkaProducer.Delivery
    ) async throws -> KafkaProducer.Delivery {
        guard Tracing.tracer != nil else { return try await body([]) }
        return try await Tracing.withSpan(
            "\(KafkaTopicLabels.label(topic)) publish", kind: .producer,
            attributes: attributes(topic: topic, operation: "send")
        ) { span in
            let delivery = try await body(headers(of: span))
            record(delivery, on: span)
            return delivery
        }
    }

    /// A producer span for a fire-and-forget send, ended by the delivery report.
    static func startProducer(topic: String) -> Span? {
        guard let tracer = Tracing.tracer else { return nil }
        return tracer.startSpan(
            "\(KafkaTopicLabels.label(topic)) publish", kind: .producer, parent: Tracing.current?.context,
            attributes: attributes(topic: topic, operation: "send"))
    }

    /// `onDelivery`, ending the fire-and-forget producer span first (nil span: `onDelivery` itself).
    static func ending(
        _ span: Span?, _ onDelivery: @escaping @Sendable (Result<KafkaProducer.Delivery, KafkaError>) -> Void
    ) -> @Sendable (Result<KafkaProducer.Delivery, KafkaError>) -> Void {
        guard let span else { return onDelivery }
        return { result in
            switch result {
            case .success(let delivery): record(delivery, on: span)
            case .failure(let error): span.recordError(error)
            }
            span.end()
            onDelivery(result)
        }
    }

    /// Runs a consumed message's handler in a consumer span whose parent is the message's `traceparent`.
    static func consume(_ message: KafkaMessage, group: String, _ body: () async -> Void) async {
        guard Tracing.tracer != nil else { return await body() }
        let parent = TraceContext.parse(
            traceparent: message.header(TraceContext.traceparentHeader),
            tracestate: message.header(TraceContext.tracestateHeader))
        var attributes = attributes(topic: message.topic, operation: "process")
        attributes += [
            Attribute("messaging.consumer.group.name", .string(group)),
            Attribute("messaging.destination.partition.id", .string(String(message.partition))),
            Attribute("messaging.kafka.offset", .int(message.offset)),
        ]
        await Tracing.withSpan(
            "\(KafkaTopicLabels.label(message.topic)) process", kind: .consumer, parent: parent, attributes: attributes
        ) {
            _ in await body()
        }
    }

    /// Runs `body` (reading a reply the waiting request received) in a consumer span `<topic> receive` whose parent
    /// is the reply's `traceparent`: the consumer side of a request/reply hop, in the request's trace.
    public static func receive<T>(_ message: KafkaMessage, _ body: () -> T) -> T {
        guard Tracing.tracer != nil else { return body() }
        let parent = TraceContext.parse(
            traceparent: message.header(TraceContext.traceparentHeader),
            tracestate: message.header(TraceContext.tracestateHeader))
        return Tracing.withSpan(
            "\(KafkaTopicLabels.label(message.topic)) receive", kind: .consumer, parent: parent,
            attributes: attributes(topic: message.topic, operation: "receive") + [
                Attribute("messaging.destination.partition.id", .string(String(message.partition))),
                Attribute("messaging.kafka.offset", .int(message.offset)),
            ]
        ) { _ in body() }
    }
}
