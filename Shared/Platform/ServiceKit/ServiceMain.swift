import Contracts
import Foundation
import HTTPClient
import HTTPServer
import Kafka
import Messaging
import Runtime

/// What every service binary shares: configuration, logging, readiness, the Kafka producer, event publishing and
/// the outbound HTTP client.
public struct ServiceContext: Sendable {
    public let name: String
    public let environment: Environment
    public let logger: Logger
    public let readiness: Readiness
    public let kafka: KafkaConfiguration
    public let producer: KafkaProducer
    public let publisher: EventPublisher
    /// The binary's one outbound HTTP client (one libcurl thread and pool), logging with `logger`.
    public let http: HTTPClient

    /// Publishes a domain event as CloudEvents JSON on `mapvest.events.v1`, keyed by `key`, retrying with back-off
    /// until the broker acknowledges it. Throws `PublishError` only at `deadline` (nil: never, so call it from
    /// after-reply work or a consumer's handler, whose offset waits for it), and `CancellationError`.
    public func emit<T: Codable & Sendable>(
        type: String, schemaVersion: Int, key: String, subject: String? = nil, data: T,
        deadline: ContinuousClock.Instant? = nil
    ) async throws {
        let event = try self.event(type: type, schemaVersion: schemaVersion, key: key, subject: subject, data: data)
        try await publisher.deliver(topic: event.topic, key: event.key, value: event.value, until: deadline)
    }

    /// A domain event as `emit` publishes it, for an `Outbox`: the entry's id is the CloudEvent id.
    public func event<T: Codable & Sendable>(
        type: String, schemaVersion: Int, key: String, subject: String? = nil, data: T
    ) throws -> OutboxEntry {
        let event = CloudEvent(
            id: UUID().uuidString.lowercased(), source: "/mapvest/\(name.lowercased())", type: type,
            time: Timestamp.iso8601(Date()), schemaVersion: schemaVersion, subject: subject, data: data)
        return OutboxEntry(id: event.id, topic: Topics.events, key: key, value: try WireJSON.encode(event))
    }
}

/// Runs a service binary: reads configuration, creates the standard topics, serves `/healthz`, `/readyz` and
/// `/metrics` on `ADMIN_PORT`, starts the parts the service returns, and on SIGTERM drains them in reverse order.
public enum ServiceMain {
    public static func run(
        name: String, defaultAdminPort: Int, _ makeParts: @Sendable (ServiceContext) async throws -> [any Service]
    ) async {
        let environment = Environment()
        let logger = Logger(label: name.lowercased())
        // One metrics label for every gateway's reply topic (`Topics.replies(gatewayInstance:)`), not one per replica.
        KafkaTopicLabels.collapse(prefix: "mapvest.gateway.replies.", into: "mapvest.gateway.replies")
        do {
            let readiness = Readiness()
            let kafka = KafkaConfiguration.fromEnvironment(environment)
            try await ensureStandardTopics(configuration: kafka, logger: logger, environment: environment)
            let producer = try KafkaProducer.make(configuration: kafka, logger: logger)
            readiness.require { producer.isAvailable }
            let http = try HTTPClient.make(logger: logger)
            let tracing = try TracingSetup.install(
                environment: environment, serviceName: name, http: http, logger: logger)
            let context = ServiceContext(
                name: name, environment: environment, logger: logger, readiness: readiness, kafka: kafka,
                producer: producer, publisher: EventPublisher(producer: producer, logger: logger), http: http)
            let admin = HTTPServer(
                configuration: HTTPServerConfiguration(
                    host: environment.get("ADMIN_HOST", default: "0.0.0.0"),
                    port: environment.get("ADMIN_PORT", default: defaultAdminPort), threads: 1, name: "admin"),
                handler: AdminHandler(endpoints: AdminEndpoints(readiness: readiness)), logger: logger)
            let parts = try await makeParts(context)
            // Every variable has been read by now: one that is set but unparseable stops the binary here.
            try environment.validate()
            // Stopped in reverse: the parts first, then the producer (it flushes what they produced), then the span
            // exporter (it flushes what all of them traced), then admin.
            let group = ServiceGroup(
                services: [admin] + (tracing.map { [$0] } ?? []) + [producer] + parts, readiness: readiness,
                logger: logger,
                shutdownTimeout: environment.milliseconds("SHUTDOWN_TIMEOUT_MS", default: .seconds(25)))
            try await group.run()
        } catch {
            logger.error("exiting", [LogKeys.error: "\(error)"])
            exit(1)
        }
    }
}
