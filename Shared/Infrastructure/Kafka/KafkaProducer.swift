import CRdKafka
import Foundation
import Runtime
import Synchronization

/// An idempotent producer (`acks=all`). One per process is enough: it is thread-safe and batches internally.
///
/// A dedicated thread polls librdkafka for delivery reports; each message carries a retained box whose callback
/// runs exactly once, from that thread. A second thread watches reachability (`BrokerLiveness`) while the producer is
/// in use (`ProducerLifecycle.watchWindow`): every `ProducerLifecycle.livenessTick` without a delivery it probes the
/// brokers (metadata, `probeTimeout`); while they
/// are unreachable — refusing connections (at once), or not answering at all for a window (e.g. frozen) — new sends
/// are refused at once (so a gateway can answer 503 promptly), `isAvailable` is false and availability observers are
/// told, until a broker answers again. Messages already enqueued are not failed by this: they are delivered when a
/// broker answers again, or reported failed by librdkafka itself.
///
/// As a `Service`, `run()` waits and `shutdown()` flushes outstanding messages (bounded; at once when no broker is
/// reachable) and stops the poller; add it to the service group before the services that use it.
public final class KafkaProducer: Service {
    /// The outcome of one delivery: where the message landed.
    public typealias Delivery = (partition: Int32, offset: Int64)

    public let name = "kafka-producer"
    /// How long a probe waits for a broker's answer before the brokers count as unreachable.
    static let probeTimeout: Duration = .milliseconds(400)
    /// How long the poll thread waits for a delivery report (one arriving returns it at once; a stop yields it).
    static let pollWait: Int32 = 1000
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
        state.close(flushTimeout: .seconds(5))
        rd_kafka_yield(handle.raw)
    }

    /// Whether sends are accepted (false after shutdown or while no broker is reachable).
    public var isAvailable: Bool {
        state.lifecycle.withLock { $0.acceptsSends }
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
    ///
    /// A task cancelled while waiting for the delivery report throws `CancellationError` at once; the message,
    /// already enqueued, may still be delivered.
    public func send(topic: String, partition: Int32?, key: [UInt8]?, value: [UInt8], headers: [KafkaHeader])
        async throws -> Delivery
    {
        // A task already cancelled enqueues nothing: a message its caller will not wait for would be published
        // behind its back (an outbox entry, for one, is then relayed again).
        try Task.checkCancellation()
        try admit()
        return try await KafkaTracing.produce(topic: topic) { traceHeaders in
            let box = DeliveryBox(topic: topic, state: state)
            return try await box.wait { box throws(KafkaError) in
                try produce(
                    box, topic: topic, partition: partition, key: key, value: value, headers: headers + traceHeaders)
            }
        }
    }

    /// Enqueues without waiting. `onDelivery` runs exactly once, on the producer's poll thread (keep it short),
    /// unless this throws, in which case it never runs.
    public func enqueue(
        topic: String, partition: Int32? = nil, key: [UInt8]?, value: [UInt8], headers: [KafkaHeader],
        onDelivery: @escaping @Sendable (Result<Delivery, KafkaError>) -> Void
    ) throws(KafkaError) {
        try admit()
        let span = KafkaTracing.startProducer(topic: topic)
        let box = DeliveryBox(topic: topic, state: state, onDelivery: KafkaTracing.ending(span, onDelivery))
        let traced = headers + KafkaTracing.headers(of: span)
        try produce(box, topic: topic, partition: partition, key: key, value: value, headers: traced)
    }

    /// Throws at once when the lifecycle refuses sends (shut down, or no broker reachable).
    /// A send wakes an idle liveness thread.
    private func admit() throws(KafkaError) {
        let (action, wake) = state.lifecycle.withLock { lifecycle in
            let action = lifecycle.send()
            return (action, action == .enqueue && lifecycle.sent(now: .now))
        }
        if case .refuse(let refusal) = action {
            KafkaMetrics.produceErrors.increment()
            throw refusal.error
        }
        if wake { state.livenessWakeup.signal() }
    }

    /// Hands the message to librdkafka with `box` as its retained context; when this throws, the box is released
    /// and never completed.
    private func produce(
        _ box: DeliveryBox, topic: String, partition: Int32?, key: [UInt8]?, value: [UInt8], headers: [KafkaHeader]
    ) throws(KafkaError) {
        var cHeaders: OpaquePointer?
        if !headers.isEmpty {
            cHeaders = rd_kafka_headers_new(headers.count)
            for header in headers {
                header.value.withUnsafeBytes { bytes in
                    _ = rd_kafka_header_add(cHeaders, header.key, -1, bytes.baseAddress, bytes.count)
                }
            }
        }
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

    public func run() async throws {
        await state.closedSignal.wait()
        await state.stoppedSignal.wait()
    }

    /// Refuses new sends, flushes outstanding messages (up to 10 s, off the cooperative pool) and stops the poller.
    public func shutdown() async {
        state.close(flushTimeout: .seconds(10))
        // The poll thread waits up to `pollWait` for a report; this returns it now to begin the flush.
        rd_kafka_yield(handle.raw)
        await state.stoppedSignal.wait()
    }
}

/// State shared by the producer, its poll and liveness threads, its error hook and delivery reports: the
/// lifecycle under one lock, the availability observers and the signals its actions fire. Package-visible only so
/// that tests can make a `DeliveryBox`.
package final class ProducerState: Sendable {
    let lifecycle = Mutex(ProducerLifecycle())
    let observers = Mutex<[@Sendable (Bool) -> Void]>([])
    let closedSignal = OneShotSignal()
    let stoppedSignal = OneShotSignal()
    /// Wakes the liveness thread early: an "all brokers down" report, or the poll thread stopped.
    let livenessWakeup = ThreadWakeup()

    package init() {}

    func close(flushTimeout: Duration) {
        if lifecycle.withLock({ $0.close(flushTimeout: flushTimeout) }) == .stopPolling {
            closedSignal.fire()
        }
    }

    /// The poll thread finished: `run()` and `shutdown()` return, the liveness thread ends.
    func stopped() {
        if lifecycle.withLock({ $0.stopped() }) { livenessWakeup.signal() }
        stoppedSignal.fire()
    }

    func noteClientError(_ error: KafkaError, logger: Logger) {
        if error.code == .allBrokersDown, lifecycle.withLock({ $0.allBrokersDownReported() }) {
            livenessWakeup.signal()
        }
        logger.log(
            error.isFatal ? .error : .warning, "kafka producer error", [LogKeys.error: .string(error.debugDescription)])
    }
}

/// The producer's poll thread: serves delivery reports and error callbacks; on stop flushes (bounded, and not at
/// all while no broker is reachable), purges what is left (its callbacks then report failures) and exits.
private func pollLoop(handle: RDKafkaHandle, state: ProducerState, logger: Logger) {
    let rk = handle.raw
    while true {
        switch state.lifecycle.withLock({ $0.pollTurn() }) {
        case .poll:
            rd_kafka_poll(rk, KafkaProducer.pollWait)
        case .flush(let timeout):
            if !flushWhileReachable(rk, state: state, timeout: timeout) {
                logger.warning(
                    "producer stopped with undelivered messages",
                    [LogKeys.kafkaOutq: .int(Int(rd_kafka_outq_len(rk)))])
                _ = rd_kafka_purge(rk, Int32(RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT))
                _ = rd_kafka_flush(rk, 1000)
            }
            state.stopped()
            return
        case .exit:
            return
        }
    }
}

/// Flushes in short slices until nothing is outstanding, `timeout` passes or the brokers are unreachable;
/// returns whether everything was delivered.
private func flushWhileReachable(_ rk: OpaquePointer, state: ProducerState, timeout: Duration) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        let outstanding = Int(rd_kafka_outq_len(rk))
        switch state.lifecycle.withLock({ $0.flushStep(outstanding: outstanding, deadline: deadline, now: .now) }) {
        case .done: return true
        case .incomplete: return false
        case .flush(let milliseconds): _ = rd_kafka_flush(rk, milliseconds)
        }
    }
}

/// The liveness thread: every tick without a delivery (or at once after an all-brokers-down report) probes the
/// brokers with a metadata request and applies `BrokerLiveness`'s transitions; between turns it sleeps until the
/// next tick or until woken. Idle (nothing sent recently or outstanding, brokers up) it sleeps until a send.
private func livenessLoop(handle: RDKafkaHandle, state: ProducerState, logger: Logger) {
    let rk = handle.raw
    while true {
        let transition: BrokerLiveness.Transition
        let outstanding = Int(rd_kafka_outq_len(rk))
        switch state.lifecycle.withLock({ $0.livenessTurn(now: .now, outstanding: outstanding) }) {
        case .stop:
            return
        case .sleep(let deadline):
            state.livenessWakeup.wait(until: deadline)
            continue
        case .notify(let change):
            transition = change
        case .probe(let pending):
            var metadata: UnsafePointer<rd_kafka_metadata>?
            let result = rd_kafka_metadata(rk, 0, nil, &metadata, KafkaProducer.probeTimeout.clampedMilliseconds)
            if let metadata { rd_kafka_metadata_destroy(metadata) }
            let probe: BrokerLiveness.Probe =
                switch result {
                case RD_KAFKA_RESP_ERR_NO_ERROR: .answered
                case RD_KAFKA_RESP_ERR__TRANSPORT, RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN: .unreachable
                default: .unanswered
                }
            guard let change = state.lifecycle.withLock({ $0.probed(probe, pending: pending, now: .now) }) else {
                continue
            }
            if change == .down {
                logger.error(
                    "no kafka broker reachable; refusing sends",
                    [LogKeys.error: .string(KafkaError(result).description)])
            }
            transition = change
        }
        let up = transition == .up
        KafkaMetrics.brokersDown.set(up ? 0 : 1)
        if up { logger.info("kafka brokers reachable again; accepting sends") }
        for observer in state.observers.withLock({ $0 }) { observer(up) }
    }
}
