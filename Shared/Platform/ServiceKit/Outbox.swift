import Foundation
import Postgres
import Runtime
import Tracing

/// One message staged in an outbox: its id (for an event, the CloudEvent id, kept on every retry so consumers can
/// dedupe), the topic and key it goes to, and its bytes.
public struct OutboxEntry: Sendable, Equatable {
    public let id: String
    public let topic: String
    public let key: String
    public let value: [UInt8]
    /// The trace of the work that staged it (set by `Outbox.stage`), so a relay publishing it later continues it.
    public let trace: TraceContext?

    public init(id: String, topic: String, key: String, value: [UInt8], trace: TraceContext? = nil) {
        self.id = id
        self.topic = topic
        self.key = key
        self.value = value
        self.trace = trace
    }
}

/// A transactional outbox in `<schema>.outbox`: a message is staged in the same transaction as the data it
/// describes, so it exists exactly when that data committed. After COMMIT the writer relays what it staged at once
/// (`relay(_:deadline:)`); whatever that leaves (a broker down, a crash between COMMIT and publish) `OutboxRelay`
/// picks up later. Delivery is at least once, with a stable id per message.
public struct Outbox: Sendable {
    /// Publishes one entry until the broker acknowledges it, or throws at the deadline.
    public typealias Deliver = @Sendable (OutboxEntry, ContinuousClock.Instant) async throws -> Void

    public let schema: String
    let db: PostgresPool
    let deliver: Deliver
    let logger: Logger

    public init(schema: String, db: PostgresPool, logger: Logger, deliver: @escaping Deliver) {
        self.schema = schema
        self.db = db
        self.logger = logger
        self.deliver = deliver
    }

    /// The outbox table, for the owner's migrations (`version` in the owner's numbering).
    public static func migration(version: Int, schema: String) -> Migration {
        Migration(
            version: version, name: "outbox",
            sql: """
                CREATE TABLE IF NOT EXISTS "\(schema)".outbox (
                    id TEXT PRIMARY KEY,
                    topic TEXT NOT NULL,
                    key TEXT NOT NULL,
                    value BYTEA NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
                );
                CREATE INDEX IF NOT EXISTS outbox_created_idx ON "\(schema)".outbox (created_at);
                \(traceColumns(schema))
                """)
    }

    /// The trace columns, for an owner whose outbox table was created before they existed (idempotent).
    public static func traceMigration(version: Int, schema: String) -> Migration {
        Migration(version: version, name: "outbox trace context", sql: traceColumns(schema))
    }

    private static func traceColumns(_ schema: String) -> String {
        """
        ALTER TABLE "\(schema)".outbox ADD COLUMN IF NOT EXISTS traceparent TEXT,
            ADD COLUMN IF NOT EXISTS tracestate TEXT;
        """
    }

    /// Stages `entry` inside the caller's transaction (a second staging of one id is a no-op), with the current
    /// span's trace context when the work is traced.
    public func stage(_ entry: OutboxEntry, on connection: PostgresConnection) async throws {
        let trace = entry.trace ?? Tracing.current?.context
        try await connection.execute(
            """
            INSERT INTO \(unescaped: table) (id, topic, key, value, traceparent, tracestate)
            VALUES (\(entry.id), \(entry.topic), \(entry.key), \(entry.value), \(trace?.traceparent),
                \(trace.flatMap { $0.traceState.isEmpty ? nil : $0.traceState }))
            ON CONFLICT (id) DO NOTHING
            """)
    }

    /// After COMMIT: publishes `entries` in order and removes the published ones. Never throws: what was not
    /// published (or not removed) stays for `OutboxRelay`, with the same id.
    public func relay(_ entries: [OutboxEntry], deadline: ContinuousClock.Instant) async {
        guard !entries.isEmpty else { return }
        var published: [String] = []
        for entry in entries {
            do {
                try await deliver(entry, deadline)
                published.append(entry.id)
                OutboxMetrics.relayed.increment()
            } catch {
                OutboxMetrics.failures.increment()
                logger.warning(
                    "outbox publish failed; the relay will retry", [LogKeys.error: .string("\(error)")])
                break
            }
        }
        guard !published.isEmpty else { return }
        do {
            try await db.execute("DELETE FROM \(unescaped: table) WHERE id = ANY(\(published)::text[])")
        } catch {
            logger.warning(
                "outbox cleanup failed; the relay will publish again", [LogKeys.error: .string("\(error)")])
        }
    }

    /// One relay pass: locks up to `limit` entries older than `grace` (left by a writer that failed or died; younger
    /// ones are still being relayed by their writer) with `FOR UPDATE SKIP LOCKED`, so replicas share the backlog
    /// without publishing an entry twice at once, publishes them in order and deletes them in the same transaction.
    /// Returns how many were published.
    @discardableResult
    public func relayBacklog(olderThan grace: Duration, limit: Int = Outbox.batch, attempt: Duration = .seconds(5))
        async throws -> Int
    {
        let graceMilliseconds = Int(grace.inSeconds * 1000)
        let published = try await db.transaction { connection -> Int in
            let rows = try await connection.query(
                """
                SELECT id, topic, key, value, traceparent, tracestate FROM \(unescaped: table)
                WHERE created_at < clock_timestamp() - \(graceMilliseconds)::int * interval '1 millisecond'
                ORDER BY created_at, id LIMIT \(limit) FOR UPDATE SKIP LOCKED
                """)
            var done: [String] = []
            for row in rows {
                guard let id = row.string("id"), let topic = row.string("topic"), let key = row.string("key"),
                    let value = row.bytes("value")
                else { continue }
                let trace = TraceContext.parse(
                    traceparent: row.string("traceparent"), tracestate: row.string("tracestate"))
                do {
                    try await relayTraced(
                        OutboxEntry(id: id, topic: topic, key: key, value: value, trace: trace), until: .now + attempt)
                    done.append(id)
                } catch {
                    OutboxMetrics.failures.increment()
                    logger.warning("outbox relay publish failed", [LogKeys.error: .string("\(error)")])
                    break
                }
            }
            if !done.isEmpty {
                try await connection.execute("DELETE FROM \(unescaped: table) WHERE id = ANY(\(done)::text[])")
            }
            return done.count
        }
        OutboxMetrics.relayed.increment(by: Int64(published))
        return published
    }

    /// Delivers a relayed entry in a span continuing the trace that staged it (the producer span and headers
    /// follow), or untraced when it was staged outside a trace.
    private func relayTraced(_ entry: OutboxEntry, until deadline: ContinuousClock.Instant) async throws {
        guard let trace = entry.trace, Tracing.tracer != nil else { return try await deliver(entry, deadline) }
        try await Tracing.withSpan(
            "outbox relay", parent: trace, attributes: [Attribute("messaging.destination.name", .string(entry.topic))]
        ) { _ in try await deliver(entry, deadline) }
    }

    /// How many entries wait in the outbox.
    public func backlog() async throws -> Int {
        try await db.query("SELECT count(*) AS n FROM \(unescaped: table)").first?.int("n") ?? 0
    }

    /// How many entries one relay pass takes at most.
    public static let batch = 100

    private var table: String { "\"\(schema)\".outbox" }
}

/// The outbox series: backlog, relayed and failed publishes.
enum OutboxMetrics {
    static let backlog = MetricsRegistry.shared.gauge(
        "outbox_backlog", help: "Outbox entries waiting to be published (as of the relay's last pass).")
    static let relayed = MetricsRegistry.shared.counter(
        "outbox_relayed_total", help: "Outbox entries published to Kafka.")
    static let failures = MetricsRegistry.shared.counter(
        "outbox_publish_failures_total", help: "Outbox publishes that failed (left for the relay).")
}
