import CRdKafka
import Glibc
import Runtime

/// librdkafka's in-process mock Kafka cluster (experimental upstream), reachable over TCP by other processes:
/// for dev and tests only, hence a module of its own that no service links. It lives as long as this object; its
/// owner (`Tools/DevBroker`) keeps it for the whole process and drops it from the main thread at exit, since
/// destroying it joins librdkafka's threads.
///
/// Known quirks: it cannot serve CreateTopics (topics are auto-created with 4 partitions; `KafkaAdmin` falls back
/// to that), a member that left stays until `session.timeout.ms`, and a waiting fetch is not woken by new data
/// (latency ≈ `fetch.wait.max.ms`) — the development profile of `KafkaConfiguration` accounts for both.
public final class MockKafkaCluster: @unchecked Sendable {
    /// The `bootstrap.servers` string of the mock brokers.
    public let bootstrapServers: String
    /// The `rd_kafka_mock_cluster_t`, destroyed before `host`, which owns its threads.
    private let cluster: OpaquePointer
    /// The host client: it never connects anywhere; it only runs the mock brokers.
    private let host: OpaquePointer
    /// Reached from the log callback through the host's unretained `opaque`; outlives `host` (released after
    /// `deinit` has destroyed it).
    private let log: LogSink

    private init(bootstrapServers: String, cluster: OpaquePointer, host: OpaquePointer, log: LogSink) {
        self.bootstrapServers = bootstrapServers
        self.cluster = cluster
        self.host = host
        self.log = log
    }

    /// Starts `brokers` mock brokers (at least one) listening on loopback.
    public static func make(brokers: Int32, logger: Logger) throws(MockKafkaClusterError) -> MockKafkaCluster {
        let log = LogSink(logger: logger.with([LogKeys.kafkaClient: "mock-cluster"]))
        guard let conf = rd_kafka_conf_new() else { throw MockKafkaClusterError("conf_new failed") }
        var errorText = [CChar](repeating: 0, count: 512)
        guard rd_kafka_conf_set(conf, "log_level", "4", &errorText, errorText.count) == RD_KAFKA_CONF_OK else {
            rd_kafka_conf_destroy(conf)
            throw MockKafkaClusterError(text(errorText))
        }
        rd_kafka_conf_set_opaque(conf, Unmanaged.passUnretained(log).toOpaque())
        rd_kafka_conf_set_log_cb(conf, logCallback)
        guard let host = rd_kafka_new(RD_KAFKA_PRODUCER, conf, &errorText, errorText.count) else {
            rd_kafka_conf_destroy(conf)  // rd_kafka_new takes ownership of conf only on success.
            throw MockKafkaClusterError(text(errorText))
        }
        guard let cluster = rd_kafka_mock_cluster_new(host, max(brokers, 1)) else {
            rd_kafka_destroy(host)
            throw MockKafkaClusterError("mock cluster could not start")
        }
        guard let bootstraps = rd_kafka_mock_cluster_bootstraps(cluster) else {
            rd_kafka_mock_cluster_destroy(cluster)
            rd_kafka_destroy(host)
            throw MockKafkaClusterError("mock cluster has no bootstrap servers")
        }
        return MockKafkaCluster(
            bootstrapServers: String(cString: bootstraps), cluster: cluster, host: host, log: log)
    }

    deinit {
        rd_kafka_mock_cluster_destroy(cluster)
        rd_kafka_destroy(host)
    }

    /// The librdkafka version loaded at run time.
    public static var libraryVersion: String { String(cString: rd_kafka_version_str()) }

    /// Sets the delay before a new group's first rebalance (3 s by default, like a broker's
    /// `group.initial.rebalance.delay.ms`). Members wait in JoinGroup meanwhile, so a session timeout shorter than
    /// the delay would expire them. Only librdkafka ≥ 2.3 has the call (looked up at run time, since the headers
    /// are Debian's 2.0.2); returns false when the loaded library lacks it.
    @discardableResult
    public func setInitialRebalanceDelay(_ delay: Duration) -> Bool {
        typealias SetDelay = @convention(c) (OpaquePointer, Int32) -> Void
        guard let symbol = dlsym(nil, "rd_kafka_mock_group_initial_rebalance_delay_ms") else { return false }
        let milliseconds = delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000
        unsafeBitCast(symbol, to: SetDelay.self)(cluster, Int32(clamping: max(milliseconds, 0)))
        return true
    }

    /// Whether the loaded librdkafka can delete a partition's oldest records (`deleteRecords`): ≥ 2.16 has the
    /// call; Debian's 2.0.2 does not.
    public static var canDeleteRecords: Bool { deleteRecordsSymbol != nil }

    /// Drops the records of `topic` [`partition`] below `offset` from the mock's log, as a broker's retention
    /// would; consumers below it then restart from the new start (`auto.offset.reset`). Blocks until the mock's
    /// thread has done it: call it off the cooperative pool. Returns librdkafka's error code (0: done).
    public func deleteRecords(topic: String, partition: Int32, below offset: Int64) -> Int32 {
        typealias DeleteRecords = @convention(c) (OpaquePointer, UnsafePointer<CChar>, Int32, Int64) -> Int32
        guard let symbol = Self.deleteRecordsSymbol else { return RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED.rawValue }
        return unsafeBitCast(symbol, to: DeleteRecords.self)(cluster, topic, partition, offset)
    }

    /// `rd_kafka_mock_partition_delete_records`, looked up at run time (the headers are Debian's 2.0.2).
    private static var deleteRecordsSymbol: UnsafeMutableRawPointer? {
        dlsym(nil, "rd_kafka_mock_partition_delete_records")
    }
}

/// Why the mock cluster could not start or do what was asked.
public struct MockKafkaClusterError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}

/// The NUL-terminated text in a C error buffer.
private func text(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// The mock brokers' librdkafka log lines, into the owner's logger.
private final class LogSink: Sendable {
    let logger: Logger
    init(logger: Logger) { self.logger = logger }
}

private let logCallback: @convention(c) (OpaquePointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Void =
    { rk, level, facility, line in
        guard let rk, let opaque = rd_kafka_opaque(rk) else { return }
        let sink = Unmanaged<LogSink>.fromOpaque(opaque).takeUnretainedValue()
        sink.logger.log(
            level <= 3 ? .error : level == 4 ? .warning : .info, line.map { String(cString: $0) } ?? "",
            [LogKeys.kafkaFacility: .string(facility.map { String(cString: $0) } ?? ""), LogKeys.source: "librdkafka"])
    }
