import CRdKafka
import Foundation
import Runtime
import Synchronization

/// Topic administration. Every call runs on a dedicated thread, off the cooperative pool.
public enum KafkaAdmin {
    private static let warnedNoController = Atomic<Bool>(false)

    /// A topic to create when missing.
    public struct TopicSpec: Sendable {
        public var name: String
        public var partitions: Int32
        /// -1: the broker's default.
        var replicationFactor: Int32
        /// Topic-level settings, e.g. `retention.ms`.
        public var configs: [String: String]

        public init(name: String, partitions: Int32, replicationFactor: Int32 = -1, configs: [String: String] = [:]) {
            self.name = name
            self.partitions = partitions
            self.replicationFactor = replicationFactor
            self.configs = configs
        }
    }

    /// Creates missing topics (an existing topic, or TOPIC_ALREADY_EXISTS, is success; partition counts of existing
    /// topics are not changed, a smaller count is logged).
    public static func ensureTopics(
        configuration: KafkaConfiguration, topics: [(name: String, partitions: Int32)], timeout: Duration,
        logger: Logger
    ) async throws {
        try await ensureTopics(
            configuration: configuration, specs: topics.map { TopicSpec(name: $0.name, partitions: $0.partitions) },
            timeout: timeout, logger: logger)
    }

    /// Creates missing topics with settings.
    ///
    /// A cluster whose metadata names a controller that is not one of its brokers cannot serve CreateTopics
    /// (librdkafka's mock broker, used for dev and tests, is one): there the topics are auto-created by a metadata
    /// request instead, with the broker's default partition count, and a warning is logged once per process.
    public static func ensureTopics(
        configuration: KafkaConfiguration, specs: [TopicSpec], timeout: Duration, logger: Logger
    ) async throws {
        guard !specs.isEmpty else { return }
        let logger = logger.with([LogKeys.kafkaClient: "admin"])
        try await onDedicatedThread("kafka-admin") { () throws(KafkaError) in
            try ensureTopicsBlocking(configuration: configuration, specs: specs, timeout: timeout, logger: logger)
        }
    }

    /// The partition count of every topic in the cluster, by name.
    public static func partitionCounts(configuration: KafkaConfiguration, timeout: Duration, logger: Logger)
        async throws -> [String: Int32]
    {
        try await onDedicatedThread("kafka-admin") { () throws(KafkaError) -> [String: Int32] in
            let handle = try RDKafkaHandle.make(
                kind: RD_KAFKA_PRODUCER, properties: configuration.librdkafkaProperties(for: .admin),
                context: CallbackContext(logger: logger))
            return try clusterMetadata(handle, timeout: timeout).topics
        }
    }

    /// The partition count of `topic`, or nil when it does not exist.
    public static func partitionCount(
        configuration: KafkaConfiguration, topic: String, timeout: Duration, logger: Logger
    ) async throws -> Int32? {
        try await onDedicatedThread("kafka-admin") { () throws(KafkaError) -> Int32? in
            let handle = try RDKafkaHandle.make(
                kind: RD_KAFKA_PRODUCER, properties: configuration.librdkafkaProperties(for: .admin),
                context: CallbackContext(logger: logger))
            return try clusterMetadata(handle, timeout: timeout).topics[topic]
        }
    }

    private static func ensureTopicsBlocking(
        configuration: KafkaConfiguration, specs: [TopicSpec], timeout: Duration, logger: Logger
    ) throws(KafkaError) {
        let deadline = ContinuousClock.now + timeout
        let handle = try RDKafkaHandle.make(
            kind: RD_KAFKA_PRODUCER, properties: configuration.librdkafkaProperties(for: .admin),
            context: CallbackContext(logger: logger))
        let cluster = try clusterMetadata(handle, timeout: timeout)
        var missing: [TopicSpec] = []
        for spec in specs {
            if let existing = cluster.topics[spec.name] {
                if existing < spec.partitions {
                    logger.warning(
                        "kafka topic has fewer partitions than configured",
                        [
                            LogKeys.kafkaTopic: .string(spec.name), LogKeys.kafkaPartitions: .int(Int(existing)),
                            LogKeys.kafkaPartitionsWanted: .int(Int(spec.partitions)),
                        ])
                }
            } else {
                missing.append(spec)
            }
        }
        guard !missing.isEmpty else { return }
        // -1 (not known yet) is left to CreateTopics, which waits for a controller; a named controller that is not
        // among the brokers means the cluster cannot serve CreateTopics at all.
        let controller = rd_kafka_controllerid(handle.raw, 0)
        if controller >= 0, !cluster.brokerIds.contains(controller) {
            // Warn once per process (the dev broker is the usual cause); later occurrences are debug lines.
            let level: Logger.Level = warnedNoController.exchange(true, ordering: .relaxed) ? .debug : .warning
            logger.log(
                level,
                "kafka cluster has no usable controller; auto-creating topics with the broker's default partitions",
                [LogKeys.kafkaTopics: .string(missing.map(\.name).joined(separator: ","))])
            try autoCreate(
                configuration: configuration, topics: missing.map(\.name), deadline: deadline, logger: logger)
            return
        }
        try createTopics(handle, missing, deadline: deadline)
        logger.info("kafka topics created", [LogKeys.kafkaTopics: .string(missing.map(\.name).joined(separator: ","))])
    }

    private struct ClusterMetadata {
        var topics: [String: Int32] = [:]
        var brokerIds: Set<Int32> = []
    }

    private static func clusterMetadata(_ handle: RDKafkaHandle, timeout: Duration) throws(KafkaError)
        -> ClusterMetadata
    {
        var pointer: UnsafePointer<rd_kafka_metadata>?
        let result = rd_kafka_metadata(handle.raw, 1, nil, &pointer, timeout.clampedMilliseconds)
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR, let pointer else { throw KafkaError(result) }
        let metadata = CHandle(pointer, free: { rd_kafka_metadata_destroy($0) })
        var out = ClusterMetadata()
        let md = metadata.raw.pointee
        for i in 0..<Int(md.broker_cnt) { out.brokerIds.insert(md.brokers[i].id) }
        for i in 0..<Int(md.topic_cnt) {
            let topic = md.topics[i]
            guard topic.err == RD_KAFKA_RESP_ERR_NO_ERROR, let name = topic.topic else { continue }
            out.topics[String(cString: name)] = topic.partition_cnt
        }
        return out
    }

    private static func createTopics(_ handle: RDKafkaHandle, _ specs: [TopicSpec], deadline: ContinuousClock.Instant)
        throws(KafkaError)
    {
        let rk = handle.raw
        var errorText = [CChar](repeating: 0, count: 512)
        var newTopics: [CHandle<OpaquePointer>] = []
        for spec in specs {
            guard
                let raw = rd_kafka_NewTopic_new(
                    spec.name, spec.partitions, spec.replicationFactor, &errorText, errorText.count)
            else {
                throw KafkaError(code: .invalidArgument, detail: cBufferString(errorText), isRetriable: false)
            }
            let topic = CHandle(raw, free: { rd_kafka_NewTopic_destroy($0) })
            for (name, value) in spec.configs.sorted(by: { $0.key < $1.key }) {
                let result = rd_kafka_NewTopic_set_config(raw, name, value)
                guard result == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(result, detail: name) }
            }
            newTopics.append(topic)
        }
        guard let rawOptions = rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_CREATETOPICS) else {
            throw KafkaError(code: .invalidArgument, detail: "AdminOptions_new", isRetriable: false)
        }
        let options = CHandle(rawOptions, dependsOn: handle, free: { rd_kafka_AdminOptions_destroy($0) })
        let timeoutMs = max(deadline.remainingMilliseconds, 1)
        _ = rd_kafka_AdminOptions_set_request_timeout(options.raw, timeoutMs, &errorText, errorText.count)
        _ = rd_kafka_AdminOptions_set_operation_timeout(options.raw, timeoutMs, &errorText, errorText.count)
        guard let rawQueue = rd_kafka_queue_new(rk) else {
            throw KafkaError(code: .invalidArgument, detail: "queue_new", isRetriable: false)
        }
        let queue = CHandle(rawQueue, dependsOn: handle, free: { rd_kafka_queue_destroy($0) })
        var rawTopics: [OpaquePointer?] = newTopics.map(\.raw)
        rd_kafka_CreateTopics(rk, &rawTopics, rawTopics.count, options.raw, queue.raw)
        guard let rawEvent = rd_kafka_queue_poll(queue.raw, timeoutMs + 1000) else {
            throw KafkaError(code: .timedOut, detail: "CreateTopics")
        }
        let event = CHandle(rawEvent, dependsOn: queue, free: { rd_kafka_event_destroy($0) })
        let eventError = rd_kafka_event_error(event.raw)
        guard eventError == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError(eventError, detail: rd_kafka_event_error_string(event.raw).map { String(cString: $0) })
        }
        guard let result = rd_kafka_event_CreateTopics_result(event.raw) else {
            throw KafkaError(code: .state, detail: "no CreateTopics result")
        }
        var count = 0
        guard let results = rd_kafka_CreateTopics_result_topics(result, &count) else { return }
        for i in 0..<count {
            guard let topicResult = results[i] else { continue }
            let err = rd_kafka_topic_result_error(topicResult)
            if err == RD_KAFKA_RESP_ERR_NO_ERROR || err == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS { continue }
            let name = rd_kafka_topic_result_name(topicResult).map { String(cString: $0) } ?? "?"
            let text = rd_kafka_topic_result_error_string(topicResult).map { String(cString: $0) } ?? ""
            throw KafkaError(err, detail: "\(name): \(text)")
        }
    }

    /// Auto-creates topics through metadata requests from a client that allows it.
    private static func autoCreate(
        configuration: KafkaConfiguration, topics: [String], deadline: ContinuousClock.Instant, logger: Logger
    ) throws(KafkaError) {
        var properties = configuration.librdkafkaProperties(for: .admin)
        properties["allow.auto.create.topics"] = "true"
        let handle = try RDKafkaHandle.make(
            kind: RD_KAFKA_PRODUCER, properties: properties, context: CallbackContext(logger: logger))
        for name in topics {
            guard let rawTopic = rd_kafka_topic_new(handle.raw, name, nil) else {
                throw KafkaError(code: .invalidArgument, detail: name, isRetriable: false)
            }
            let topic = CHandle(rawTopic, dependsOn: handle, free: { rd_kafka_topic_destroy($0) })
            while true {
                var pointer: UnsafePointer<rd_kafka_metadata>?
                let result = rd_kafka_metadata(
                    handle.raw, 0, topic.raw, &pointer, max(deadline.remainingMilliseconds, 1))
                let metadata = pointer.map { CHandle($0, free: { rd_kafka_metadata_destroy($0) }) }
                guard result == RD_KAFKA_RESP_ERR_NO_ERROR, let md = metadata?.raw.pointee else {
                    throw KafkaError(result, detail: name)
                }
                let topicError = md.topic_cnt > 0 ? md.topics[0].err : RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART
                if topicError == RD_KAFKA_RESP_ERR_NO_ERROR, md.topics[0].partition_cnt > 0 { break }
                guard deadline.remainingMilliseconds > 0 else { throw KafkaError(topicError, detail: name) }
                // Back off before asking again, serving the client's callbacks meanwhile.
                rd_kafka_poll(handle.raw, 50)
            }
        }
    }
}
