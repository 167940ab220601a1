import CRdKafka
import Glibc
import Runtime

/// librdkafka's in-process mock Kafka cluster (experimental upstream), reachable over TCP by other processes:
/// for dev and tests only. It lives as long as this object.
///
/// Known quirks: it cannot serve CreateTopics (topics are auto-created with 4 partitions; `KafkaAdmin` falls back
/// to that), a member that left stays until `session.timeout.ms`, and a waiting fetch is not woken by new data
/// (latency ≈ `fetch.wait.max.ms`) — the development profile of `KafkaConfiguration` accounts for both.
public final class MockKafkaCluster: Sendable {
    /// The `bootstrap.servers` string of the mock brokers.
    public let bootstrapServers: String
    /// Destroyed before `host` whatever the property order: it holds `host` itself (`dependsOn`).
    private let cluster: CHandle<OpaquePointer>
    private let host: RDKafkaHandle

    private init(bootstrapServers: String, cluster: CHandle<OpaquePointer>, host: RDKafkaHandle) {
        self.bootstrapServers = bootstrapServers
        self.cluster = cluster
        self.host = host
    }

    public static func make(brokers: Int32, logger: Logger) throws -> MockKafkaCluster {
        let logger = logger.with([LogKeys.kafkaClient: "mock-cluster"])
        // The host client never connects anywhere; it only owns the mock's threads.
        let host = try RDKafkaHandle.make(
            kind: RD_KAFKA_PRODUCER, properties: ["log_level": "4"], context: CallbackContext(logger: logger))
        guard let raw = rd_kafka_mock_cluster_new(host.raw, max(brokers, 1)) else {
            throw KafkaError(code: .state, detail: "mock cluster could not start", isRetriable: false)
        }
        let cluster = CHandle(raw, dependsOn: host, free: { rd_kafka_mock_cluster_destroy($0) })
        guard let bootstraps = rd_kafka_mock_cluster_bootstraps(raw) else {
            throw KafkaError(code: .state, detail: "mock cluster has no bootstrap servers", isRetriable: false)
        }
        return MockKafkaCluster(bootstrapServers: String(cString: bootstraps), cluster: cluster, host: host)
    }

    /// Sets the delay before a new group's first rebalance (3 s by default, like a broker's
    /// `group.initial.rebalance.delay.ms`). Members wait in JoinGroup meanwhile, so a session timeout shorter than
    /// the delay would expire them. Only librdkafka ≥ 2.3 has the call (looked up at run time, since the headers
    /// are Debian's 2.0.2); returns false when the loaded library lacks it.
    @discardableResult
    public func setInitialRebalanceDelay(_ delay: Duration) -> Bool {
        typealias SetDelay = @convention(c) (OpaquePointer, Int32) -> Void
        guard let symbol = dlsym(nil, "rd_kafka_mock_group_initial_rebalance_delay_ms") else { return false }
        unsafeBitCast(symbol, to: SetDelay.self)(cluster.raw, delay.clampedMilliseconds)
        return true
    }

    /// Creates a topic with an exact partition count (the mock's own API; CreateTopics is not served).
    public func createTopic(_ name: String, partitions: Int32, replicationFactor: Int32 = 1) throws {
        let result = rd_kafka_mock_topic_create(cluster.raw, name, partitions, replicationFactor)
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(result, detail: name) }
    }
}
