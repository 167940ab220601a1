import Foundation
import Runtime

/// How soon a consumer must see the first message after a silence, which sets how often it probes while idle
/// (`KafkaConfiguration.idleFetch(for:)`; the development profile only).
public enum FetchUrgency: Sendable, Equatable {
    /// On a request's path: a service's commands, whose first one after a silence a user waits for.
    case prompt
    /// Off a request's path (events for read models, after-reply effects, notification requests), or told when a
    /// message is due (a reply reader, `KafkaPartitionReader.expectMessage`): probed seldom while idle.
    case background
}

/// How to reach Kafka and which librdkafka properties to use.
///
/// `properties` are passed through to librdkafka unchanged and win over every default below, except the few
/// settings a client's semantics depend on (a group consumer's manual commits, for example).
///
/// Defaults applied when a client is created:
/// - always: `socket.nagle.disable=true` (librdkafka 2.0.2 predates the Nagle fix);
/// - producers: `enable.idempotence=true`, `acks=all`, `linger.ms=0` (librdkafka's 5 ms would delay both hops of a
///   request/reply);
/// - group consumers: `partition.assignment.strategy=cooperative-sticky` (a joining or leaving member moves only
///   the partitions that change owner; nobody else pauses), `group.instance.id` = `groupInstanceId` when set
///   (static membership: a replica restarting under the same id within the session timeout gets its partitions
///   back without a rebalance); production `session.timeout.ms=10000`, `heartbeat.interval.ms=1000` (a dead
///   replica's partitions move within 10 s instead of librdkafka's 45 s; brokers refuse less than 6 s by default);
/// - development profile (`isDevelopment`, tuned for the mock dev broker): consumers `fetch.wait.max.ms=1`,
///   `session.timeout.ms=1500`, `heartbeat.interval.ms=500`, `max.poll.interval.ms=7000`; everyone
///   `topic.metadata.refresh.interval.ms=2000`; consumers pause their assignment between probes while idle
///   (`idleFetch`, `IdleFetchPacer`: the dev broker answers an empty fetch only after `fetch.wait.max.ms`, so
///   fetching back to back would keep it busy with nothing to do).
public struct KafkaConfiguration: Sendable {
    /// `bootstrap.servers`: comma-separated `host:port` list.
    public var brokers: String
    /// librdkafka properties passed through unchanged (e.g. `security.protocol`, `sasl.mechanisms`).
    public var properties: [String: String]
    /// Use the development profile (`MAPVEST_ENV=dev`).
    public var isDevelopment: Bool
    /// This replica's stable identity for static group membership (`KAFKA_GROUP_INSTANCE_ID`); nil: dynamic.
    var groupInstanceId: String?
    /// How consumers on a request's path (`FetchUrgency.prompt`) fetch while idle (`IdleFetchPacer`); nil:
    /// continuously, librdkafka's way (production, where the broker answers a waiting fetch as soon as data
    /// arrives). The development profile's default is on.
    package var idleFetch: IdleFetchPacer.Settings?
    /// The longest pause between idle probes of consumers off a request's path (`FetchUrgency.background`); used
    /// only while `idleFetch` is on, and never shorter than its `maxGap`.
    package var backgroundIdleFetchMaxGap: Duration = IdleFetchPacer.Settings.backgroundMaxGap

    public init(
        brokers: String, properties: [String: String] = [:], isDevelopment: Bool = false, groupInstanceId: String? = nil
    ) {
        self.brokers = brokers
        self.properties = properties
        self.isDevelopment = isDevelopment
        self.groupInstanceId = groupInstanceId
        self.idleFetch = isDevelopment ? IdleFetchPacer.Settings() : nil
    }

    /// Reads:
    /// - `KAFKA_BROKERS` (default: the contents of the file named by `KAFKA_BOOTSTRAP_FILE`, else `127.0.0.1:9092`);
    /// - `KAFKA_CONFIG_<NAME>`: passthrough librdkafka properties (`NAME` lower-cased, `_` → `.`, so
    ///   `KAFKA_CONFIG_SECURITY_PROTOCOL=ssl` sets `security.protocol=ssl`);
    /// - `MAPVEST_ENV=dev`: the development profile;
    /// - `KAFKA_GROUP_INSTANCE_ID`: static membership for this replica (e.g. a StatefulSet pod name);
    /// - `KAFKA_IDLE_FETCH_MAX_GAP_MS`: an idle consumer's longest pause between probes (`IdleFetchPacer`; default
    ///   100 in the development profile, off otherwise; 0 turns it off);
    /// - `KAFKA_IDLE_FETCH_BACKGROUND_MAX_GAP_MS`: the same for consumers off a request's path
    ///   (`FetchUrgency.background`; default 1000, at least `KAFKA_IDLE_FETCH_MAX_GAP_MS`).
    public static func fromEnvironment(_ env: Environment) -> KafkaConfiguration {
        var brokers = env.get("KAFKA_BROKERS")
        if brokers == nil, let file = env.get("KAFKA_BOOTSTRAP_FILE"),
            let text = try? String(contentsOfFile: file, encoding: .utf8)
        {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty { brokers = trimmed }
        }
        var properties: [String: String] = [:]
        for (name, value) in env.withPrefix("KAFKA_CONFIG_") where !name.isEmpty {
            properties[name.lowercased().replacingOccurrences(of: "_", with: ".")] = value
        }
        var configuration = KafkaConfiguration(
            brokers: brokers ?? "127.0.0.1:9092", properties: properties, isDevelopment: env.isDevelopment,
            groupInstanceId: env.get("KAFKA_GROUP_INSTANCE_ID").flatMap { $0.isEmpty ? nil : $0 })
        if env.get("KAFKA_IDLE_FETCH_MAX_GAP_MS") != nil {
            let gap = env.milliseconds("KAFKA_IDLE_FETCH_MAX_GAP_MS", default: .zero)
            configuration.idleFetch = gap > .zero ? IdleFetchPacer.Settings(maxGap: gap) : nil
        }
        configuration.backgroundIdleFetchMaxGap = env.milliseconds(
            "KAFKA_IDLE_FETCH_BACKGROUND_MAX_GAP_MS", default: IdleFetchPacer.Settings.backgroundMaxGap)
        return configuration
    }

    /// How a consumer of `urgency` fetches while idle; nil: continuously.
    package func idleFetch(for urgency: FetchUrgency) -> IdleFetchPacer.Settings? {
        guard var settings = idleFetch else { return nil }
        if urgency == .background {
            settings = IdleFetchPacer.Settings(
                hotFor: settings.hotFor, firstGap: settings.firstGap,
                maxGap: max(settings.maxGap, backgroundIdleFetchMaxGap), probeLength: settings.probeLength)
        }
        return settings
    }

    /// The kind of librdkafka client a property set is for.
    package enum Role: Sendable {
        case producer
        /// A consumer in a group with manual offset commits.
        case groupConsumer(groupId: String)
        /// A consumer with manual assignment and no commits.
        case reader(groupId: String)
        /// Admin requests (metadata, topic creation).
        case admin
    }

    /// The complete librdkafka property set for a client of `role`.
    package func librdkafkaProperties(for role: Role) -> [String: String] {
        var p: [String: String] = ["bootstrap.servers": brokers, "socket.nagle.disable": "true"]
        if isDevelopment { p["topic.metadata.refresh.interval.ms"] = "2000" }
        switch role {
        case .producer:
            p["enable.idempotence"] = "true"
            p["acks"] = "all"
            // librdkafka's default (5 ms since 1.5) would wait up to 5 ms per produce on the request path, twice per
            // request/reply. Under load batches still form: messages queue while a ProduceRequest is in flight.
            p["linger.ms"] = "0"
        case .groupConsumer, .reader:
            if case .groupConsumer = role {
                p["partition.assignment.strategy"] = "cooperative-sticky"
                if let groupInstanceId { p["group.instance.id"] = groupInstanceId }
            }
            // The idle pacer ends a probe when every partition reported its end (emitted again after each resume).
            if idleFetch != nil { p["enable.partition.eof"] = "true" }
            if isDevelopment {
                p["fetch.wait.max.ms"] = "1"
                p["session.timeout.ms"] = "1500"
                p["heartbeat.interval.ms"] = "500"
                p["max.poll.interval.ms"] = "7000"
            } else {
                p["session.timeout.ms"] = "10000"
                p["heartbeat.interval.ms"] = "1000"
            }
        case .admin:
            break
        }
        p.merge(properties) { _, passthrough in passthrough }
        // Settings the clients' semantics depend on; not overridable.
        switch role {
        case .groupConsumer(let groupId):
            p["group.id"] = groupId
            p["enable.auto.commit"] = "false"
            p["enable.auto.offset.store"] = "false"
            p["auto.offset.reset"] = properties["auto.offset.reset"] ?? "earliest"
        case .reader(let groupId):
            p["group.id"] = groupId
            p["enable.auto.commit"] = "false"
            p["enable.auto.offset.store"] = "false"
        case .admin:
            p["allow.auto.create.topics"] = "false"
        case .producer:
            break
        }
        return p
    }

    /// `max.poll.interval.ms` as the consumer will use it.
    func maxPollInterval(groupId: String) -> Duration {
        let value = librdkafkaProperties(for: .groupConsumer(groupId: groupId))["max.poll.interval.ms"]
        return .milliseconds(value.flatMap { Int64($0) } ?? 300_000)
    }
}
