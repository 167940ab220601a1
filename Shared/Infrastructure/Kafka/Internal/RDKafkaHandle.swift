import CRdKafka
import Runtime
import Synchronization

/// Owns one `rd_kafka_t` and destroys it when the last reference goes; nothing else frees it.
///
/// librdkafka handles are thread-safe, hence `@unchecked Sendable`. Callbacks find their Swift context through
/// the `opaque` pointer, which is *unretained*, so `context` is kept alive until `rd_kafka_destroy` has returned and
/// no callback can outlive it. `rd_kafka_destroy` joins librdkafka's threads, so it never runs on the cooperative
/// pool: owners drop the last reference on their dedicated thread (the poll thread), where it is destroyed at once;
/// dropped anywhere else (a failed `make`, a test), `deinit` hands the destruction to a new dedicated thread.
/// `destroy` checks the thread with a precondition.
final class RDKafkaHandle: @unchecked Sendable {
    let raw: OpaquePointer
    let context: CallbackContext
    let kind: rd_kafka_type_t

    private init(raw: OpaquePointer, context: CallbackContext, kind: rd_kafka_type_t) {
        self.raw = raw
        self.context = context
        self.kind = kind
    }

    /// Creates a client. `configure` may install more callbacks on the `rd_kafka_conf_t` before it is handed over.
    static func make(
        kind: rd_kafka_type_t, properties: [String: String], context: CallbackContext,
        configure: (OpaquePointer) -> Void = { _ in }
    ) throws(KafkaError) -> RDKafkaHandle {
        guard let conf = rd_kafka_conf_new() else { throw KafkaError(code: .invalidArgument, detail: "conf_new") }
        var errorText = [CChar](repeating: 0, count: 512)
        for (name, value) in properties.sorted(by: { $0.key < $1.key }) {
            let result = rd_kafka_conf_set(conf, name, value, &errorText, errorText.count)
            if result != RD_KAFKA_CONF_OK {
                rd_kafka_conf_destroy(conf)
                throw KafkaError(
                    code: .invalidArgument, detail: "property \(name): " + cBufferString(errorText),
                    isRetriable: false)
            }
        }
        rd_kafka_conf_set_opaque(conf, Unmanaged.passUnretained(context).toOpaque())
        rd_kafka_conf_set_log_cb(conf, logCallback)
        rd_kafka_conf_set_error_cb(conf, errorCallback)
        configure(conf)
        guard let rk = rd_kafka_new(kind, conf, &errorText, errorText.count) else {
            // rd_kafka_new takes ownership of conf only on success.
            rd_kafka_conf_destroy(conf)
            throw KafkaError(code: .invalidArgument, detail: cBufferString(errorText), isRetriable: false)
        }
        return RDKafkaHandle(raw: rk, context: context, kind: kind)
    }

    deinit {
        if DedicatedThread.isCurrent {
            Self.destroy(raw, context)
            return
        }
        let address = Int(bitPattern: raw)  // a plain integer crosses to the thread
        startThread("rdkafka-destroy") { [context] in
            if let raw = OpaquePointer(bitPattern: address) { Self.destroy(raw, context) }
        }
    }

    /// Destroys the client (blocking until librdkafka's threads have exited), then lets `context` go.
    private static func destroy(_ raw: OpaquePointer, _ context: CallbackContext) {
        precondition(DedicatedThread.isCurrent, "rd_kafka_destroy outside a dedicated thread")
        withExtendedLifetime(context) { rd_kafka_destroy(raw) }
    }

    /// The client's fatal error, if one was raised.
    func fatalError() -> KafkaError? {
        var text = [CChar](repeating: 0, count: 512)
        let code = rd_kafka_fatal_error(raw, &text, text.count)
        guard code != RD_KAFKA_RESP_ERR_NO_ERROR else { return nil }
        return KafkaError(
            code: KafkaError.Code(rawValue: code.rawValue), detail: cBufferString(text),
            isRetriable: false, isFatal: true)
    }
}

/// The Swift side of a client's C callbacks (reached through the `opaque` pointer).
///
/// Owners install hooks after creating the client and remove them when they close it; hooks capture their owner
/// weakly, so a context never keeps its owner alive.
final class CallbackContext: Sendable {
    typealias ErrorHook = @Sendable (KafkaError) -> Void
    typealias RebalanceHook =
        @Sendable (
            _ rk: OpaquePointer, _ event: rd_kafka_resp_err_t,
            _ partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>
        ) -> Bool
    typealias CommitHook =
        @Sendable (
            _ err: rd_kafka_resp_err_t, _ offsets: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        ) -> Void

    private struct Hooks {
        var error: ErrorHook?
        var rebalance: RebalanceHook?
        var commit: CommitHook?
    }

    let logger: Logger
    private let hooks = Mutex(Hooks())

    init(logger: Logger) { self.logger = logger }

    func setErrorHook(_ hook: ErrorHook?) { hooks.withLock { $0.error = hook } }
    func setRebalanceHook(_ hook: RebalanceHook?) { hooks.withLock { $0.rebalance = hook } }
    func setCommitHook(_ hook: CommitHook?) { hooks.withLock { $0.commit = hook } }

    var errorHook: ErrorHook? { hooks.withLock { $0.error } }
    var rebalanceHook: RebalanceHook? { hooks.withLock { $0.rebalance } }
    var commitHook: CommitHook? { hooks.withLock { $0.commit } }

    static func from(_ opaque: UnsafeMutableRawPointer?) -> CallbackContext? {
        opaque.map { Unmanaged<CallbackContext>.fromOpaque($0).takeUnretainedValue() }
    }
}

private let logCallback: @convention(c) (OpaquePointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Void =
    {
        rk, level, facility, text in
        guard let rk, let context = CallbackContext.from(rd_kafka_opaque(rk)) else { return }
        let logLevel: Logger.Level =
            switch level {
            case ...2: .error
            case 3...4: .warning
            case 5...6: .info
            default: .debug
            }
        context.logger.log(
            logLevel, text.map { String(cString: $0) } ?? "",
            [LogKeys.kafkaFacility: .string(facility.map { String(cString: $0) } ?? ""), LogKeys.source: "librdkafka"])
    }

private let errorCallback:
    @convention(c) (OpaquePointer?, Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void =
        { rk, code, reason, opaque in
            guard let context = CallbackContext.from(opaque) else { return }
            var error = KafkaError(
                rd_kafka_resp_err_t(rawValue: code), detail: reason.map { String(cString: $0) })
            if code == RD_KAFKA_RESP_ERR__FATAL.rawValue, let rk {
                var text = [CChar](repeating: 0, count: 512)
                let underlying = rd_kafka_fatal_error(rk, &text, text.count)
                error = KafkaError(
                    code: KafkaError.Code(rawValue: underlying.rawValue), detail: cBufferString(text),
                    isRetriable: false,
                    isFatal: true)
            }
            if let hook = context.errorHook {
                hook(error)
            } else {
                context.logger.log(
                    error.isFatal ? .error : .warning, "kafka client error",
                    [LogKeys.error: .string(error.debugDescription)])
            }
        }

/// A topic and partition.
package struct TopicPartition: Hashable, Sendable, CustomStringConvertible {
    package var topic: String
    package var partition: Int32
    package init(topic: String, partition: Int32) {
        self.topic = topic
        self.partition = partition
    }
    package var description: String { "\(topic)[\(partition)]" }
}

/// Owns one `rd_kafka_topic_partition_list_t`.
final class RDKafkaTopicPartitionList {
    let raw: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>

    init(capacity: Int = 4) {
        raw = rd_kafka_topic_partition_list_new(Int32(clamping: max(capacity, 1)))
    }

    convenience init(_ entries: [(TopicPartition, Int64?)]) {
        self.init(capacity: entries.count)
        for (tp, offset) in entries { add(tp, offset: offset) }
    }

    func add(_ tp: TopicPartition, offset: Int64? = nil) {
        guard let element = rd_kafka_topic_partition_list_add(raw, tp.topic, tp.partition) else { return }
        if let offset { element.pointee.offset = offset }
    }

    var count: Int { Int(raw.pointee.cnt) }

    deinit { rd_kafka_topic_partition_list_destroy(raw) }

    /// Reads a list owned by someone else.
    static func entries(of list: UnsafePointer<rd_kafka_topic_partition_list_t>?)
        -> [(tp: TopicPartition, offset: Int64, err: rd_kafka_resp_err_t)]
    {
        guard let list, let elems = list.pointee.elems else { return [] }
        return (0..<Int(list.pointee.cnt)).map { i in
            let e = elems[i]
            let topic = e.topic.map { String(cString: $0) } ?? ""
            return (TopicPartition(topic: topic, partition: e.partition), e.offset, e.err)
        }
    }
}

/// The NUL-terminated text in a C error buffer.
func cBufferString(_ buffer: [CChar]) -> String {
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
}
