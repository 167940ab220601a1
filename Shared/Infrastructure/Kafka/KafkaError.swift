import CRdKafka

/// A failure reported by librdkafka or by this module.
///
/// `description` is generic (the error's name and librdkafka's fixed text for the code); broker- or
/// client-supplied detail, which may name topics or hosts, is only in `debugDescription`.
public struct KafkaError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// A librdkafka error code (`rd_kafka_resp_err_t`). Negative values are local errors, positive ones come from
    /// the broker.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        static let queueFull = Code(rawValue: RD_KAFKA_RESP_ERR__QUEUE_FULL.rawValue)
        static let messageTimedOut = Code(rawValue: RD_KAFKA_RESP_ERR__MSG_TIMED_OUT.rawValue)
        public static let timedOut = Code(rawValue: RD_KAFKA_RESP_ERR__TIMED_OUT.rawValue)
        public static let transport = Code(rawValue: RD_KAFKA_RESP_ERR__TRANSPORT.rawValue)
        public static let allBrokersDown = Code(rawValue: RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN.rawValue)
        static let unknownTopic = Code(rawValue: RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC.rawValue)
        static let unknownTopicOrPartition = Code(rawValue: RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART.rawValue)
        static let topicAlreadyExists = Code(rawValue: RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS.rawValue)
        public static let invalidArgument = Code(rawValue: RD_KAFKA_RESP_ERR__INVALID_ARG.rawValue)
        static let fatal = Code(rawValue: RD_KAFKA_RESP_ERR__FATAL.rawValue)
        public static let destroyed = Code(rawValue: RD_KAFKA_RESP_ERR__DESTROY.rawValue)
        public static let state = Code(rawValue: RD_KAFKA_RESP_ERR__STATE.rawValue)

        /// librdkafka's symbolic name, e.g. `_QUEUE_FULL`.
        public var name: String { String(cString: rd_kafka_err2name(rd_kafka_resp_err_t(rawValue: rawValue))) }
        public var description: String { name }
    }

    public let code: Code
    /// Whether trying again later may succeed (broker down, queue full, timeouts, leader changes).
    public let isRetriable: Bool
    /// A fatal error leaves the client unusable (e.g. the idempotent producer lost its guarantees).
    let isFatal: Bool
    /// Operation-specific detail for `debugDescription` only.
    private let detail: String?
    /// A failed delivery whose message may nevertheless have reached the broker (librdkafka's message status is
    /// not "not persisted", e.g. it timed out after being sent): its effect is unknown, not absent.
    public private(set) var possiblyDelivered = false

    public init(code: Code, detail: String? = nil, isRetriable: Bool? = nil, isFatal: Bool = false) {
        self.code = code
        self.detail = detail
        self.isRetriable = isRetriable ?? Self.retriableCodes.contains(code.rawValue)
        self.isFatal = isFatal
    }

    init(_ err: rd_kafka_resp_err_t, detail: String? = nil) {
        self.init(code: Code(rawValue: err.rawValue), detail: detail)
    }

    /// Takes ownership of an `rd_kafka_error_t` and destroys it.
    init(consuming error: OpaquePointer) {
        defer { rd_kafka_error_destroy(error) }
        let code = rd_kafka_error_code(error)
        self.init(
            code: Code(rawValue: code.rawValue),
            detail: rd_kafka_error_string(error).map { String(cString: $0) },
            isRetriable: rd_kafka_error_is_retriable(error) != 0 || Self.retriableCodes.contains(code.rawValue),
            isFatal: rd_kafka_error_is_fatal(error) != 0)
    }

    /// This error, for a failed delivery whose message may have reached the broker.
    func markingPossiblyDelivered(_ value: Bool) -> KafkaError {
        var copy = self
        copy.possiblyDelivered = value
        return copy
    }

    public var description: String {
        let text = String(cString: rd_kafka_err2str(rd_kafka_resp_err_t(rawValue: code.rawValue)))
        return "Kafka error \(code.name): \(text)"
    }

    public var debugDescription: String {
        var out = description
        if let detail, !detail.isEmpty { out += " (\(detail))" }
        if isFatal { out += " [fatal]" }
        return out
    }

    private static let retriableCodes: Set<Int32> = [
        RD_KAFKA_RESP_ERR__QUEUE_FULL, RD_KAFKA_RESP_ERR__MSG_TIMED_OUT, RD_KAFKA_RESP_ERR__TIMED_OUT,
        RD_KAFKA_RESP_ERR__TRANSPORT, RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN, RD_KAFKA_RESP_ERR__RESOLVE,
        RD_KAFKA_RESP_ERR__WAIT_COORD, RD_KAFKA_RESP_ERR__TIMED_OUT_QUEUE, RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE,
        RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION, RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT,
        RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION, RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS,
        RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE, RD_KAFKA_RESP_ERR_NOT_COORDINATOR,
        RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS, RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND,
        RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS,
        RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR,
    ].reduce(into: []) { $0.insert($1.rawValue) }
}
