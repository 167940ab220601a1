import CRdKafka
import Foundation
import Runtime
import Synchronization

/// Reads one partition without a consumer group (manual assignment, no commits), from the partition's end as of
/// startup: for per-instance reply topics. A dedicated thread polls and hands each message to `deliver` itself:
/// a reply reaches its waiting request without a hop through another task (one thread wake-up less per reply).
///
/// The end offset is resolved explicitly (high watermark) before the assignment, so everything produced after
/// `waitUntilReady` returns is read. With `KafkaConfiguration.idleFetch` (the development profile) an idle reader
/// pauses between fetch probes (`IdleFetchPacer`); `expectMessage()` has it fetch continuously again at once.
public final class KafkaPartitionReader: Sendable {
    private let core: ReaderCore

    private init(core: ReaderCore) {
        self.core = core
    }

    /// Creates the reader and starts positioning it at the partition's end (non-blocking); see `waitUntilReady`.
    /// `deliver` runs on the reader's poll thread for each message, in offset order, until `close()`: it must be
    /// quick and never block (resume a continuation, take a lock briefly). `urgency` sets how often an idle reader
    /// probes; a reader told of each message due (`expectMessage`) can be `.background`.
    public static func make(
        configuration: KafkaConfiguration, topic: String, partition: Int32, urgency: FetchUrgency = .prompt,
        logger: Logger, deliver: @escaping @Sendable (KafkaMessage) -> Void
    ) throws -> KafkaPartitionReader {
        let logger = logger.with([LogKeys.kafkaTopic: .string(topic), LogKeys.kafkaPartition: .int(Int(partition))])
        let groupId = "mapvest.reader.\(UInt64.random(in: 0...UInt64.max))"
        let handle = try RDKafkaHandle.make(
            kind: RD_KAFKA_CONSUMER, properties: configuration.librdkafkaProperties(for: .reader(groupId: groupId)),
            context: CallbackContext(logger: logger))
        rd_kafka_poll_set_consumer(handle.raw)
        guard let queue = RDKafkaQueue(consumerQueueOf: handle) else {
            throw KafkaError(code: .state, detail: "no consumer queue", isRetriable: false)
        }
        let core = ReaderCore(
            handle: handle, queue: queue, topic: topic, partition: partition, deliver: deliver, logger: logger,
            idleFetch: configuration.idleFetch(for: urgency))
        startThread("kafka-reader-poll") { [core] in core.pollLoop() }
        return KafkaPartitionReader(core: core)
    }

    deinit {
        core.requestStop()
    }

    /// Returns once the reader is positioned at the end offset; throws when `timeout` passes first or the reader
    /// was closed.
    public func waitUntilReady(timeout: Duration) async throws {
        let ready = core.ready
        let done = await withDeadline(timeout) { () -> Bool in
            await ready.wait()
            return true
        }
        guard done == true, core.startOffset != nil else {
            throw KafkaError(code: .timedOut, detail: "partition reader not positioned")
        }
    }

    /// A message is due soon (a request was just sent): an idle reader fetches continuously again at once.
    public func expectMessage() {
        core.expectMessage()
    }

    /// The offset reading started from, once positioned.
    public var startOffset: Int64? { core.startOffset }

    /// Stops the poll thread: no message is delivered once it has noticed. Idempotent; does not block.
    public func close() {
        core.requestStop()
    }

    /// Returns after the poll thread has closed the consumer (after `close()`, or when it stopped on its own).
    public func closed() async {
        await core.stopped.wait()
    }
}

final class ReaderCore: Sendable {
    private let handle: RDKafkaHandle
    private let queue: RDKafkaQueue
    private let topic: String
    private let partition: Int32
    private let deliver: @Sendable (KafkaMessage) -> Void
    private let logger: Logger
    private let stopRequested = Atomic<Bool>(false)
    /// Cuts the back-off between end-offset queries short when a stop is requested.
    private let stopWakeup = ThreadWakeup()
    private let position = Mutex<Int64?>(nil)
    /// Pauses the idle partition between probes; nil fetches continuously. `paused` is the state last applied.
    private let pace: Mutex<(pacer: IdleFetchPacer, paused: Bool)?>
    let ready = OneShotSignal()
    let stopped = OneShotSignal()

    init(
        handle: RDKafkaHandle, queue: RDKafkaQueue, topic: String, partition: Int32,
        deliver: @escaping @Sendable (KafkaMessage) -> Void, logger: Logger, idleFetch: IdleFetchPacer.Settings?
    ) {
        self.pace = Mutex(idleFetch.map { (IdleFetchPacer(settings: $0, now: .now), false) })
        self.handle = handle
        self.queue = queue
        self.topic = topic
        self.partition = partition
        self.deliver = deliver
        self.logger = logger
    }

    var startOffset: Int64? { position.withLock { $0 } }

    func requestStop() {
        stopRequested.store(true, ordering: .releasing)
        stopWakeup.signal()
        queue.wake()
    }

    private var stopping: Bool { stopRequested.load(ordering: .acquiring) }

    func expectMessage() {
        let now = ContinuousClock.now
        let resume = pace.withLock { $0?.pacer.activity(now: now) } == .resume
        if resume { queue.wake() }
    }

    /// Moves the pacer on and pauses or resumes the partition to match; returns how long the next poll may block.
    /// `event`: a message arrived (fetch on), the partition's end was reported (a probe's answer), or neither.
    private func applyPace(_ rk: OpaquePointer, _ list: RDKafkaTopicPartitionList, event: rd_kafka_resp_err_t?) -> Int32
    {
        let now = ContinuousClock.now
        let (change, next) = pace.withLock { pace -> (Bool?, Int32) in
            guard var current = pace else { return (nil, 100) }
            if event == RD_KAFKA_RESP_ERR_NO_ERROR { _ = current.pacer.activity(now: now) }
            if event == RD_KAFKA_RESP_ERR__PARTITION_EOF { _ = current.pacer.probeAnswered(now: now) }
            _ = current.pacer.tick(now: now)
            let paused = !current.pacer.isFetching
            let change = paused == current.paused ? nil : paused
            current.paused = paused
            pace = current
            // Nothing to commit here; a stop and a message expected (`expectMessage`) wake the queue.
            return (change, current.pacer.pollWait(now: now, settled: true).clampedMilliseconds)
        }
        if change == true { _ = rd_kafka_pause_partitions(rk, list.raw) }
        if change == false {
            _ = rd_kafka_resume_partitions(rk, list.raw)
            let query = RDKafkaTopicPartitionList([(TopicPartition(topic: topic, partition: partition), nil)])
            withExtendedLifetime(query) { wakeFetchers(rk, query.raw) }
        }
        return next
    }

    func pollLoop() {
        let rk = handle.raw
        defer {
            _ = rd_kafka_consumer_close(rk)
            ready.fire()
            stopped.fire()
        }
        var low: Int64 = 0
        var high: Int64 = 0
        var attempts = 0
        while !stopping {
            let result = rd_kafka_query_watermark_offsets(rk, topic, partition, &low, &high, 1000)
            if result == RD_KAFKA_RESP_ERR_NO_ERROR { break }
            attempts += 1
            if attempts % 20 == 1 {
                logger.warning(
                    "kafka reader cannot resolve end offset yet",
                    [LogKeys.error: .string(KafkaError(result).description)])
            }
            stopWakeup.wait(until: .now + .milliseconds(100))
        }
        guard !stopping else { return }
        let list = RDKafkaTopicPartitionList([(TopicPartition(topic: topic, partition: partition), high)])
        let assigned = rd_kafka_assign(rk, list.raw)
        guard assigned == RD_KAFKA_RESP_ERR_NO_ERROR else {
            logger.error("kafka reader assign failed", [LogKeys.error: .string(KafkaError(assigned).description)])
            return
        }
        position.withLock { $0 = high }
        ready.fire()
        logger.debug("kafka reader positioned", [LogKeys.kafkaOffset: .int(Int(high))])
        var timeout: Int32 = 100
        while !stopping {
            guard let message = rd_kafka_consumer_poll(rk, timeout) else {
                timeout = applyPace(rk, list, event: nil)
                continue
            }
            defer { rd_kafka_message_destroy(message) }
            let err = message.pointee.err
            timeout = applyPace(rk, list, event: err)
            if err == RD_KAFKA_RESP_ERR_NO_ERROR {
                let received = KafkaMessage(copying: message)
                KafkaMetrics.consumedCounter(received.topic).increment()
                deliver(received)
            } else if err != RD_KAFKA_RESP_ERR__PARTITION_EOF {
                logger.warning("kafka reader error", [LogKeys.error: .string(KafkaError(err).description)])
            }
        }
    }
}
