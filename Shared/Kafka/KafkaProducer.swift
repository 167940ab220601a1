import CRdKafka
import Foundation
import Runtime
import Synchronization

/// An idempotent producer (`acks=all`). One per process is enough: it is thread-safe and batches internally.
///
/// A dedicated thread polls librdkafka for delivery reports; each message carries a retained box whose callback
/// runs exactly once, from that thread. A second thread watches reachability (`BrokerLiveness`): every
/// `livenessTick` without a delivery it probes the brokers (metadata, `probeTimeout`); while they are unreachable —
/// refusing connections or not answering at all, e.g. frozen — sends are refused at once (so a gateway can answer
/// 503 promptly), `isAvailable` is false and availability observers are told, until a broker answers again.
///
/// As a `Service`, `run()` waits and `shutdown()` flushes outstanding messages (bounded; at once when no broker is
/// reachable) and stops the poller; add it to the service group before the services that use it.
public final class KafkaProducer: Service {
    /// The outcome of one delivery: where the message landed.
    public typealias Delivery = (partition: Int32, offset: Int64)

    public let name = "kafka-producer"
    /// How often reachability is checked (a probe is sent only when no delivery arrived since the last check).
    static let livenessTick: Duration = .milliseconds(200)
    /// How long a probe waits for a broker's answer before the brokers count as unreachable.
    static let probeTimeout: Duration = .milliseconds(400)
    private let handle: RDKafkaHandle
    private let state: ProducerState
    private let logger: Logger

    private init(handle: RDKafkaHandle, state: ProducerState, logger: Logger) {
        self.handle = handle
        self.state = state
        self.logger = logger
    }

    public static func make(configuration: KafkaConfiguration, logger: Logger) throws -> KafkaProducer {
        let logger = logger.with([LogKeys.kafkaClient: "producer"])
        let context = CallbackContext(logger: logger)
        let handle = try RDKafkaHandle.make(
            kind: RD_KAFKA_PRODUCER, properties: configuration.librdkafkaProperties(for: .producer), context: context
        ) { conf in
            rd_kafka_conf_set_dr_msg_cb(conf, deliveryReportCallback)
        }
        let state = ProducerState()
        context.setErrorHook { [weak state] error in
            state?.noteClientError(error, logger: logger)
        }
        let producer = KafkaProducer(handle: handle, state: state, logger: logger)
        // The threads hold the handle; when the last exits after the producer is gone, the handle is destroyed there.
        startThread("kafka-producer-poll") { [handle, state, logger] in
            pollLoop(handle: handle, state: state, logger: logger)
        }
        startThread("kafka-producer-liveness") { [handle, state, logger] in
            livenessLoop(handle: handle, state: state, logger: logger)
        }
        return producer
    }

    deinit {
        state.requestStop(flushTimeout: .seconds(5))
    }

    /// Whether sends are accepted (false after shutdown or while no broker is reachable).
    public var isAvailable: Bool {
        !state.closed.load(ordering: .acquiring) && !state.brokersDown.load(ordering: .acquiring)
    }

    /// Calls `observer` (on the liveness thread; keep it short) each time the brokers become unreachable (false)
    /// or reachable again (true).
    public func onAvailabilityChange(_ observer: @escaping @Sendable (Bool) -> Void) {
        state.observers.withLock { $0.append(observer) }
    }

    /// Enqueues and awaits the delivery report. Throws `KafkaError` at once (no waiting) when the message cannot be
    /// enqueued (queue full, unknown topic, fatal error, no reachable broker, shut down).
    public func send(topic: String, key: [UInt8]?, value: [UInt8], headers: [KafkaHeader]) async throws -> Delivery {
        try await send(topic: topic, partition: nil, key: key, value: value, headers: headers)
    }

    /// Like `send(topic:key:value:headers:)`, to an explicit partition (`nil`: chosen by the key's hash).
    public func send(topic: String, partition: Int32?, key: [UInt8]?, value: [UInt8], headers: [KafkaHeader])
        async throws -> Delivery
    {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Delivery, any Error>) in
            do {
                try enqueue(topic: topic, partition: partition, key: key, value: value, headers: headers) { result in
                    continuation.resume(with: result)
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// Enqueues without waiting. `onDelivery` runs exactly once, on the producer's poll thread (keep it short),
    /// unless this throws, in which case it never runs.
    public func enqueue(
        topic: String, partition: Int32? = nil, key: [UInt8]?, value: [UInt8], headers: [KafkaHeader],
        onDelivery: @escaping @Sendable (Result<Delivery, KafkaError>) -> Void
    ) throws(KafkaError) {
        if state.closed.load(ordering: .acquiring) {
            KafkaMetrics.produceErrors.increment()
            throw KafkaError(code: .state, detail: "producer is shut down", isRetriable: false)
        }
        if state.brokersDown.load(ordering: .acquiring) {
            KafkaMetrics.produceErrors.increment()
            throw KafkaError(code: .allBrokersDown, detail: "no broker reachable")
        }
        var cHeaders: OpaquePointer?
        if !headers.isEmpty {
            cHeaders = rd_kafka_headers_new(headers.count)
            for header in headers {
                header.value.withUnsafeBytes { bytes in
                    _ = rd_kafka_header_add(cHeaders, header.key, -1, bytes.baseAddress, bytes.count)
                }
            }
        }
        let box = DeliveryBox(topic: topic, state: state, onDelivery: onDelivery)
        let opaque = Unmanaged.passRetained(box).toOpaque()
        let raw = handle.raw
        let failure: OpaquePointer? = value.withUnsafeBytes { valueBytes in
            withOptionalBytes(key) { keyPointer, keyCount in
                mv_produce(
                    raw, topic, partition ?? MV_PARTITION_UA, keyPointer, keyCount, valueBytes.baseAddress,
                    valueBytes.count, cHeaders, opaque)
            }
        }
        if let failure {
            // Not enqueued: the box, the headers and the error stay ours.
            Unmanaged<DeliveryBox>.fromOpaque(opaque).release()
            if let cHeaders { rd_kafka_headers_destroy(cHeaders) }
            KafkaMetrics.produceErrors.increment()
            throw KafkaError(consuming: failure)
        }
    }

    /// Blocks until every enqueued message is delivered, `timeout` passes or no broker is reachable (then it
    /// returns at once: waiting would not deliver anything). Call it from a dedicated thread (or use `shutdown()`),
    /// never from the cooperative pool.
    public func flush(timeout: Duration) {
        if !flushWhileReachable(handle.raw, state: state, timeout: timeout) {
            logger.warning(
                "producer flush incomplete", [LogKeys.kafkaOutq: .int(Int(rd_kafka_outq_len(handle.raw)))])
        }
    }

    /// Messages enqueued or in flight (not yet reported).
    var outstandingMessages: Int { Int(rd_kafka_outq_len(handle.raw)) }

    public func run() async throws {
        await state.closedSignal.wait()
        await state.stoppedSignal.wait()
    }

    /// Refuses new sends, flushes outstanding messages (up to 10 s, off the cooperative pool) and stops the poller.
    public func shutdown() async {
        state.requestStop(flushTimeout: .seconds(10))
        await state.stoppedSignal.wait()
    }
}

/// State shared by the producer, its poll and liveness threads and its error hook.
final class ProducerState: Sendable {
    let closed = Atomic<Bool>(false)
    let brokersDown = Atomic<Bool>(false)
    /// librdkafka reported all brokers down; the liveness thread probes at once.
    let suspectDown = Atomic<Bool>(false)
    /// Successful deliveries so far: proof of life for `BrokerLiveness`.
    let deliveries = Atomic<UInt64>(0)
    let observers = Mutex<[@Sendable (Bool) -> Void]>([])
    private let flushTimeoutMs = Atomic<Int32>(0)
    let closedSignal = OneShotSignal()
    let stoppedSignal = OneShotSignal()

    func requestStop(flushTimeout: Duration) {
        flushTimeoutMs.store(flushTimeout.clampedMilliseconds, ordering: .relaxed)
        closed.store(true, ordering: .releasing)
        closedSignal.fire()
    }

    var flushTimeout: Int32 { flushTimeoutMs.load(ordering: .relaxed) }

    func noteClientError(_ error: KafkaError, logger: Logger) {
        if error.code == .allBrokersDown {
            suspectDown.store(true, ordering: .releasing)
        }
        logger.log(
            error.isFatal ? .error : .warning, "kafka producer error", [LogKeys.error: .string(error.debugDescription)])
    }
}

/// The retained per-message context; the delivery report releases it.
private final class DeliveryBox: Sendable {
    let topic: String
    let state: ProducerState
    private let onDelivery: @Sendable (Result<KafkaProducer.Delivery, KafkaError>) -> Void
    private let done = Atomic<Bool>(false)

    init(
        topic: String, state: ProducerState,
        onDelivery: @escaping @Sendable (Result<KafkaProducer.Delivery, KafkaError>) -> Void
    ) {
        self.topic = topic
        self.state = state
        self.onDelivery = onDelivery
    }

    func complete(_ result: Result<KafkaProducer.Delivery, KafkaError>) {
        guard !done.exchange(true, ordering: .acquiringAndReleasing) else { return }
        onDelivery(result)
    }
}

private let deliveryReportCallback:
    @convention(c) (OpaquePointer?, UnsafePointer<rd_kafka_message_t>?, UnsafeMutableRawPointer?) -> Void = {
        _, message, _ in
        guard let message, let opaque = message.pointee._private else { return }
        let box = Unmanaged<DeliveryBox>.fromOpaque(opaque).takeRetainedValue()
        let m = message.pointee
        if m.err == RD_KAFKA_RESP_ERR_NO_ERROR {
            box.state.deliveries.add(1, ordering: .releasing)
            KafkaMetrics.producedCounter(box.topic).increment()
            box.complete(.success((m.partition, m.offset)))
        } else {
            KafkaMetrics.produceErrors.increment()
            box.complete(.failure(KafkaError(m.err)))
        }
    }

private func withOptionalBytes<R>(_ bytes: [UInt8]?, _ body: (UnsafeRawPointer?, Int) -> R) -> R {
    guard let bytes, !bytes.isEmpty else { return body(nil, 0) }
    return bytes.withUnsafeBytes { body($0.baseAddress, $0.count) }
}

/// The producer's poll thread: serves delivery reports and error callbacks; on stop flushes (bounded, and not at
/// all while no broker is reachable), purges what is left (its callbacks then report failures) and exits.
private func pollLoop(handle: RDKafkaHandle, state: ProducerState, logger: Logger) {
    let rk = handle.raw
    while !state.closed.load(ordering: .acquiring) {
        rd_kafka_poll(rk, 50)
    }
    if !flushWhileReachable(rk, state: state, timeout: .milliseconds(Int64(state.flushTimeout))) {
        logger.warning(
            "producer stopped with undelivered messages", [LogKeys.kafkaOutq: .int(Int(rd_kafka_outq_len(rk)))])
        _ = rd_kafka_purge(rk, Int32(RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT))
        _ = rd_kafka_flush(rk, 1000)
    }
    state.stoppedSignal.fire()
}

/// Flushes in short slices until nothing is outstanding, `timeout` passes or the brokers are unreachable;
/// returns whether everything was delivered.
private func flushWhileReachable(_ rk: OpaquePointer, state: ProducerState, timeout: Duration) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while rd_kafka_outq_len(rk) > 0 {
        if state.brokersDown.load(ordering: .acquiring) || ContinuousClock.now >= deadline { return false }
        _ = rd_kafka_flush(rk, min(100, deadline.remainingMilliseconds))
    }
    return true
}

/// The liveness thread: every tick without a delivery (or at once after an all-brokers-down report) probes the
/// brokers with a metadata request and applies `BrokerLiveness`'s transitions.
private func livenessLoop(handle: RDKafkaHandle, state: ProducerState, logger: Logger) {
    let rk = handle.raw
    var liveness = BrokerLiveness()
    var nextTick = ContinuousClock.now + KafkaProducer.livenessTick
    // Runs until the poll thread has stopped, so a final flush still learns that the brokers went away.
    while !state.stoppedSignal.isFired {
        let hinted = state.suspectDown.exchange(false, ordering: .acquiringAndReleasing)
        if !hinted, ContinuousClock.now < nextTick {
            usleep(20_000)
            continue
        }
        nextTick = ContinuousClock.now + KafkaProducer.livenessTick
        var (step, transition) = liveness.tick(deliveries: state.deliveries.load(ordering: .acquiring))
        if hinted { step = .probe }
        if step == .probe {
            var metadata: UnsafePointer<rd_kafka_metadata>?
            let result = rd_kafka_metadata(rk, 0, nil, &metadata, KafkaProducer.probeTimeout.clampedMilliseconds)
            if let metadata { rd_kafka_metadata_destroy(metadata) }
            transition =
                liveness.probed(
                    succeeded: result == RD_KAFKA_RESP_ERR_NO_ERROR,
                    deliveries: state.deliveries.load(ordering: .acquiring)) ?? transition
            if transition == .down {
                logger.error(
                    "no kafka broker reachable; refusing sends",
                    [LogKeys.error: .string(KafkaError(result).description)])
            }
        }
        guard let transition else { continue }
        let up = transition == .up
        state.brokersDown.store(!up, ordering: .releasing)
        KafkaMetrics.brokersDown.set(up ? 0 : 1)
        if up { logger.info("kafka brokers reachable again; accepting sends") }
        for observer in state.observers.withLock({ $0 }) { observer(up) }
    }
}
