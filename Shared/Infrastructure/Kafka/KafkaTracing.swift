import Runtime
import Synchronization
import Tracing

/// Spans around Kafka hops (OpenTelemetry messaging conventions) and the `traceparent` / `tracestate` headers that
/// carry a trace from producer to consumer. Every message a traced task produces gets a producer span and the
/// headers; every consumed message runs its handler in a consumer span continuing the headers' trace. Span names
/// use the topic's metrics label (one name for every gateway's reply topic); the attributes keep the topic. A
/// topic's names and constant attributes are made (and redacted) once per topic (`Templates`). With no tracer
/// installed both pass straight through.
public enum KafkaTracing {
    /// A topic's span templates: `<label> publish`, `<label> receive` and `<label> process` with the messaging
    /// system, destination and operation.
    struct Templates: Sendable {
        let publish: SpanTemplate
        let receive: SpanTemplate
        let process: SpanTemplate

        init(topic: String) {
            let label = KafkaTopicLabels.label(topic)
            func template(_ operation: String, _ suffix: String, _ kind: SpanKind) -> SpanTemplate {
                SpanTemplate(
                    "\(label) \(suffix)", kind: kind,
                    attributes: [
                        Attribute(.messagingSystem, "kafka"), Attribute(.messagingDestinationName, .string(topic)),
                        Attribute(.messagingOperationType, .string(operation)),
                    ])
            }
            publish = template("send", "publish", .producer)
            receive = template("receive", "receive", .consumer)
            process = template("process", "process", .consumer)
        }
    }

    /// Templates by topic; a process's topics are few, and past `maxCachedTopics` a topic's are made per span.
    private static let cache = Mutex<[String: Templates]>([:])
    private static let maxCachedTopics = 256

    static func templates(_ topic: String) -> Templates {
        if let cached = cache.withLock({ $0[topic] }) { return cached }
        let made = Templates(topic: topic)
        cache.withLock { if $0.count < maxCachedTopics { $0[topic] = made } }
        return made
    }

    /// `messaging.destination.partition.id` (a string, as the conventions type it) for partitions below 256, made
    /// and vetted once.
    private static let partitionAttributes: [Attribute] = Redaction.vetted(
        (0..<256).map { Attribute(.messagingPartitionID, .string(String($0))) }
    ).kept

    static func partition(_ partition: Int32) -> Attribute {
        let index = Int(partition)
        guard partitionAttributes.indices.contains(index), partitionAttributes.count == 256 else {
            return Attribute(.messagingPartitionID, .string(String(partition)))
        }
        return partitionAttributes[index]
    }

    static func headers(of span: Span?) -> [KafkaHeader] {
        span?.context.headers.map { KafkaHeader($0.0, $0.1) } ?? []
    }

    static func record(_ delivery: KafkaProducer.Delivery, on span: Span?) {
        span?.setAttribute(partition(delivery.partition))
        span?.setAttribute(.messagingKafkaOffset, .int(delivery.offset))
    }

    /// A producer span for a send that is awaited: `body` gets the headers to add.
    static func produce(
        topic: String, isolation: isolated (any Actor)? = #isolation,
        _ body: ([KafkaHeader]) async throws -> KafkaProducer.Delivery
    ) async throws -> KafkaProducer.Delivery {
        guard Tracing.tracer != nil else { return try await body([]) }
        return try await Tracing.withSpan(templates(topic).publish) { span in
            let delivery = try await body(headers(of: span))
            record(delivery, on: span)
            return delivery
        }
    }

    /// A producer span for a fire-and-forget send, ended by the delivery report.
    static func startProducer(topic: String) -> Span? {
        guard let tracer = Tracing.tracer else { return nil }
        return tracer.startSpan(templates(topic).publish, parent: Tracing.current?.context)
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
        await Tracing.withSpan(
            templates(message.topic).process, parent: parent,
            attributes: [
                Attribute(.messagingConsumerGroupName, .string(group)), partition(message.partition),
                Attribute(.messagingKafkaOffset, .int(message.offset)),
            ]
        ) { _ in await body() }
    }

    /// Runs `body` (reading a reply the waiting request received) in a consumer span `<topic> receive` whose parent
    /// is the reply's `traceparent`: the consumer side of a request/reply hop, in the request's trace.
    public static func receive<T>(_ message: KafkaMessage, _ body: () -> T) -> T {
        guard Tracing.tracer != nil else { return body() }
        let parent = TraceContext.parse(
            traceparent: message.header(TraceContext.traceparentHeader),
            tracestate: message.header(TraceContext.tracestateHeader))
        return Tracing.withSpan(
            templates(message.topic).receive, parent: parent,
            attributes: [partition(message.partition), Attribute(.messagingKafkaOffset, .int(message.offset))]
        ) { _ in body() }
    }
}
