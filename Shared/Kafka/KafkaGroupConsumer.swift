import CRdKafka
import Foundation
import Runtime
import Synchronization

/// A consumer-group member that hands messages to a handler concurrently and commits only finished work.
///
/// - A dedicated thread polls (`rd_kafka_consumer_poll`, 100 ms) and is the only caller of the consumer's
///   C API apart from `committedOffset`; handlers run as tasks on the cooperative pool, up to `maxInFlight` at once.
/// - Offsets are committed manually (`enable.auto.commit=false`, `enable.auto.offset.store=false`,
///   `auto.offset.reset=earliest`), per partition only up to the lowest unfinished message (`OffsetTracker`),
///   asynchronously, at most every 100 ms.
/// - Handlers never exceed the cap; messages received meanwhile wait in a local buffer of up to `maxInFlight`.
///   When the buffer is full the assignment is paused (`rd_kafka_pause_partitions`) and the loop keeps polling,
///   so `max.poll.interval.ms` is never exceeded; once the buffer is half drained it is resumed.
/// - On revocation (eager or cooperative, per `rd_kafka_rebalance_protocol`) the callback waits for the revoked
///   partitions' handlers (bounded by `revokeTimeout`), commits synchronously, then unassigns. Lost partitions are
///   not committed.
/// - `shutdown()` stops intake, drains handlers (bounded by `drainTimeout`), commits, and closes the consumer,
///   which leaves the group.
/// - Every decision above is made by `ConsumerLifecycle` (a pure state machine, unit-tested without a broker);
///   this type does the C calls and runs the handlers.
public final class KafkaGroupConsumer: Service {
    public let name: String
    private let core: ConsumerCore

    private init(name: String, core: ConsumerCore) {
        self.name = name
        self.core = core
    }

    /// Creates the consumer; it joins the group when `run()` starts.
    /// - Parameters:
    ///   - drainTimeout: how long `shutdown()` waits for running handlers.
    ///   - revokeTimeout: how long a revocation waits for the revoked partitions' handlers; keep it well below
    ///     `max.poll.interval.ms` (the default is capped at half of it).
    public static func make(
        configuration: KafkaConfiguration, groupId: String, topics: [String], logger: Logger,
        drainTimeout: Duration = .seconds(20), revokeTimeout: Duration = .seconds(5)
    ) throws -> KafkaGroupConsumer {
        let logger = logger.with([LogKeys.kafkaGroup: .string(groupId)])
        let context = CallbackContext(logger: logger)
        let handle = try RDKafkaHandle.make(
            kind: RD_KAFKA_CONSUMER,
            properties: configuration.librdkafkaProperties(for: .groupConsumer(groupId: groupId)),
            context: context
        ) { conf in
            rd_kafka_conf_set_rebalance_cb(conf, rebalanceCallback)
            rd_kafka_conf_set_offset_commit_cb(conf, offsetCommitCallback)
        }
        // Route the main queue (errors, logs, commit results) to the consumer queue served by the poll thread.
        rd_kafka_poll_set_consumer(handle.raw)
        guard let queue = RDKafkaQueue(consumerQueueOf: handle) else {
            throw KafkaError(code: .state, detail: "no consumer queue", isRetriable: false)
        }
        let revoke = min(revokeTimeout, configuration.maxPollInterval(groupId: groupId) / 2)
        let core = ConsumerCore(
            handle: handle, queue: queue, groupId: groupId, topics: topics, logger: logger,
            drainTimeout: drainTimeout, revokeTimeout: revoke)
        return KafkaGroupConsumer(name: "kafka-consumer.\(groupId)", core: core)
    }

    deinit {
        core.requestStop()
    }

    /// Must be called before `run()`: the handler is called concurrently, up to `maxInFlight` messages at once.
    /// The message's offset is committable once the handler returns.
    public func setHandler(maxInFlight: Int, _ handler: @escaping @Sendable (KafkaMessage) async -> Void) {
        core.setHandler(maxInFlight: max(1, maxInFlight), handler)
    }

    /// Joins the group and consumes until `shutdown()`. Throws when the handler is missing or the subscription or
    /// the client fails fatally.
    public func run() async throws {
        try core.start()
        await core.stopped.wait()
        if let failure = core.failure { throw failure }
    }

    /// Stops intake, drains running handlers (bounded), commits, leaves the group.
    public func shutdown() async {
        core.requestStop()
        await core.stopped.wait()
    }

    /// The group's committed offset for a partition (nil when none), read from the broker.
    public func committedOffset(topic: String, partition: Int32, timeout: Duration = .seconds(5)) async throws -> Int64?
    {
        let handle = core.handle
        return try await onDedicatedThread("kafka-committed") { () throws(KafkaError) -> Int64? in
            let list = RDKafkaTopicPartitionList([(TopicPartition(topic: topic, partition: partition), nil)])
            let result = rd_kafka_committed(handle.raw, list.raw, timeout.clampedMilliseconds)
            guard result == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(result) }
            guard let entry = RDKafkaTopicPartitionList.entries(of: list.raw).first else { return nil }
            guard entry.err == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(entry.err) }
            return entry.offset >= 0 ? entry.offset : nil
        }
    }

    /// Handlers running plus received messages waiting for a slot.
    public var inFlight: Int { core.inFlight }
}

/// Owns one `rd_kafka_queue_t` (destroyed before its client: it holds the client's handle).
final class RDKafkaQueue: @unchecked Sendable {
    let raw: OpaquePointer
    private let owner: RDKafkaHandle

    init?(consumerQueueOf handle: RDKafkaHandle) {
        guard let queue = rd_kafka_queue_get_consumer(handle.raw) else { return nil }
        raw = queue
        owner = handle
    }

    /// Wakes a thread blocked polling this queue.
    func wake() { rd_kafka_queue_yield(raw) }

    deinit { rd_kafka_queue_destroy(raw) }
}

/// The consumer's C calls and threads, shared by the public object, the poll thread and handler tasks; every
/// decision is `ConsumerLifecycle`'s.
final class ConsumerCore: Sendable {
    typealias Handler = @Sendable (KafkaMessage) async -> Void

    private struct State {
        var handler: Handler?
        var lifecycle = ConsumerLifecycle()
        var failure: KafkaError?
    }

    let handle: RDKafkaHandle
    private let queue: RDKafkaQueue
    let groupId: String
    private let topics: [String]
    private let logger: Logger
    private let drainTimeout: Duration
    private let revokeTimeout: Duration
    private let inFlightGauge: Gauge
    private let lag: ConsumerLag
    private let state = Mutex(State())
    let stopped = OneShotSignal()

    init(
        handle: RDKafkaHandle, queue: RDKafkaQueue, groupId: String, topics: [String], logger: Logger,
        drainTimeout: Duration, revokeTimeout: Duration
    ) {
        self.handle = handle
        self.queue = queue
        self.groupId = groupId
        self.topics = topics
        self.logger = logger
        self.drainTimeout = drainTimeout
        self.revokeTimeout = revokeTimeout
        self.inFlightGauge = KafkaMetrics.handlerInFlight(group: groupId)
        self.lag = ConsumerLag(group: groupId, topics: topics)
    }

    var failure: KafkaError? { state.withLock { $0.failure } }
    var inFlight: Int { state.withLock { $0.lifecycle.load } }
    private var isStopping: Bool { state.withLock { $0.lifecycle.isStopping } }

    func setHandler(maxInFlight: Int, _ handler: @escaping Handler) {
        state.withLock {
            $0.handler = handler
            $0.lifecycle.configure(maxInFlight: maxInFlight)
        }
    }

    func start() throws(KafkaError) {
        let proceed = try state.withLock { s throws(KafkaError) -> Bool in
            if s.lifecycle.isStopping { return false }
            guard s.handler != nil else {
                throw KafkaError(code: .state, detail: "setHandler must be called before run", isRetriable: false)
            }
            switch s.lifecycle.start() {
            case .subscribe: return true
            case .stopped: return false
            case .alreadyStarted: throw KafkaError(code: .state, detail: "run called twice", isRetriable: false)
            }
        }
        guard proceed else {
            stopped.fire()
            return
        }
        handle.context.setRebalanceHook { [weak self] rk, event, partitions in
            guard let self else { return false }
            self.rebalance(rk: rk, event: event, partitions: partitions)
            return true
        }
        handle.context.setCommitHook { [weak self] err, offsets in
            self?.commitResult(err: err, offsets: offsets)
        }
        startThread("kafka-consumer-poll") { [self] in pollLoop() }
    }

    func requestStop() {
        let neverStarted = state.withLock { $0.lifecycle.requestStop() }
        if neverStarted {
            stopped.fire()  // a later run() returns at once
        } else {
            queue.wake()
        }
    }

    // MARK: Poll thread

    private func pollLoop() {
        let rk = handle.raw
        defer {
            handle.context.setRebalanceHook(nil)
            handle.context.setCommitHook(nil)
            stopped.fire()
        }
        let list = RDKafkaTopicPartitionList(capacity: topics.count)
        for topic in topics { list.add(TopicPartition(topic: topic, partition: MV_PARTITION_UA)) }
        let subscribed = rd_kafka_subscribe(rk, list.raw)
        guard subscribed == RD_KAFKA_RESP_ERR_NO_ERROR else {
            let error = KafkaError(subscribed)
            logger.error("kafka subscribe failed", [LogKeys.error: .string(error.debugDescription)])
            state.withLock { $0.failure = error }
            _ = rd_kafka_consumer_close(rk)
            return
        }
        logger.info("kafka consumer started", [LogKeys.kafkaTopics: .string(topics.joined(separator: ","))])
        while !isStopping {
            serviceCommitsAndPause(rk)
            lag.sampleIfDue(rk)
            guard let message = rd_kafka_consumer_poll(rk, 100) else { continue }
            handlePolled(message)
            rd_kafka_message_destroy(message)
        }
        drainAndClose(rk)
    }

    private func handlePolled(_ message: UnsafeMutablePointer<rd_kafka_message_t>) {
        let err = message.pointee.err
        if err != RD_KAFKA_RESP_ERR_NO_ERROR {
            if err == RD_KAFKA_RESP_ERR__PARTITION_EOF { return }
            let error = KafkaError(err, detail: errorText(message))
            if let fatal = handle.fatalError() {
                logger.error("kafka consumer fatal error", [LogKeys.error: .string(fatal.debugDescription)])
                state.withLock {
                    $0.failure = fatal
                    _ = $0.lifecycle.requestStop()
                }
            } else {
                logger.warning("kafka consumer error", [LogKeys.error: .string(error.debugDescription)])
            }
            return
        }
        let received = KafkaMessage(copying: message)
        KafkaMetrics.consumedCounter(received.topic).increment()
        admit(received)
    }

    private func errorText(_ message: UnsafeMutablePointer<rd_kafka_message_t>) -> String? {
        rd_kafka_message_errstr(message).map { String(cString: $0) }
    }

    private func admit(_ message: KafkaMessage) {
        let start: (Handler, ConsumerLifecycle.Work)? = state.withLock { s in
            guard let handler = s.handler, case .run(let work) = s.lifecycle.admit(message) else { return nil }
            return (handler, work)
        }
        if let (handler, work) = start { spawn(handler, work) }
    }

    private func spawn(_ handler: @escaping Handler, _ work: ConsumerLifecycle.Work) {
        inFlightGauge.add(1)
        Task { [weak self] in
            await handler(work.message)
            self?.finished(work)
        }
    }

    /// Called by handler tasks. Starts the next buffered message and wakes the poll thread to resume or to notice
    /// the drain; commits wait for the loop's next turn (at most 100 ms away).
    private func finished(_ work: ConsumerLifecycle.Work) {
        inFlightGauge.add(-1)
        let (handler, action) = state.withLock { s in (s.handler, s.lifecycle.finished(work)) }
        if let next = action.next, let handler { spawn(handler, next) }
        if action.wake { queue.wake() }
    }

    /// Commits finished work asynchronously and pauses or resumes the assignment around the cap.
    private func serviceCommitsAndPause(_ rk: OpaquePointer) {
        let (commits, action) = state.withLock { $0.lifecycle.tick(now: .now) }
        if !commits.isEmpty { commit(rk, commits, async: true) }
        switch action {
        case .none: break
        case .pause: setPaused(rk, true)
        case .resume: setPaused(rk, false)
        }
    }

    private func setPaused(_ rk: OpaquePointer, _ paused: Bool) {
        var assignment: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        guard rd_kafka_assignment(rk, &assignment) == RD_KAFKA_RESP_ERR_NO_ERROR, let assignment else { return }
        defer { rd_kafka_topic_partition_list_destroy(assignment) }
        guard assignment.pointee.cnt > 0 else { return }
        _ = paused ? rd_kafka_pause_partitions(rk, assignment) : rd_kafka_resume_partitions(rk, assignment)
        logger.debug(paused ? "kafka consumer paused at in-flight cap" : "kafka consumer resumed")
    }

    @discardableResult
    private func commit(_ rk: OpaquePointer, _ commits: [(TopicPartition, Int64)], async: Bool) -> Bool {
        let list = RDKafkaTopicPartitionList(commits.map { ($0.0, $0.1) })
        let result = rd_kafka_commit(rk, list.raw, async ? 1 : 0)
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else {
            KafkaMetrics.commitErrors.increment()
            logger.warning("kafka commit failed", [LogKeys.error: .string(KafkaError(result).description)])
            state.withLock { s in for (tp, offset) in commits { s.lifecycle.commitFailed(tp, offset: offset) } }
            return false
        }
        if !async {
            // Per-partition errors of a synchronous commit.
            for entry in RDKafkaTopicPartitionList.entries(of: list.raw) where entry.err != RD_KAFKA_RESP_ERR_NO_ERROR {
                KafkaMetrics.commitErrors.increment()
                logger.warning(
                    "kafka commit failed",
                    [
                        LogKeys.kafkaTopic: .string(entry.tp.topic),
                        LogKeys.kafkaPartition: .int(Int(entry.tp.partition)),
                        LogKeys.error: .string(KafkaError(entry.err).description),
                    ])
            }
        }
        return true
    }

    /// Results of asynchronous commits (served by the poll thread).
    private func commitResult(err: rd_kafka_resp_err_t, offsets: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?)
    {
        let entries = RDKafkaTopicPartitionList.entries(of: offsets)
        let failed = entries.filter { $0.err != RD_KAFKA_RESP_ERR_NO_ERROR || err != RD_KAFKA_RESP_ERR_NO_ERROR }
        guard !failed.isEmpty, err != RD_KAFKA_RESP_ERR__NO_OFFSET else { return }
        KafkaMetrics.commitErrors.increment()
        let code = err != RD_KAFKA_RESP_ERR_NO_ERROR ? err : failed[0].err
        // Expected while the group rebalances; anything else deserves attention.
        let rebalancing = [
            RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS, RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION,
            RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID,
        ].contains(code)
        logger.log(
            rebalancing ? .info : .warning, "kafka commit failed; retrying with the next commit",
            [LogKeys.error: .string(KafkaError(code).description)])
        state.withLock { s in for entry in failed { s.lifecycle.commitFailed(entry.tp, offset: entry.offset) } }
    }

    // MARK: Rebalance (poll thread, inside rd_kafka_consumer_poll or rd_kafka_consumer_close)

    private func rebalance(
        rk: OpaquePointer, event: rd_kafka_resp_err_t, partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>
    ) {
        let cooperative = rd_kafka_rebalance_protocol(rk).map { String(cString: $0) } == "COOPERATIVE"
        let tps = RDKafkaTopicPartitionList.entries(of: partitions).map(\.tp)
        switch event {
        case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
            if cooperative {
                if let error = rd_kafka_incremental_assign(rk, partitions) {
                    logger.error(
                        "kafka assign failed", [LogKeys.error: .string(KafkaError(consuming: error).debugDescription)])
                }
            } else {
                let result = rd_kafka_assign(rk, partitions)
                if result != RD_KAFKA_RESP_ERR_NO_ERROR {
                    logger.error("kafka assign failed", [LogKeys.error: .string(KafkaError(result).description)])
                }
            }
            let pause = state.withLock { $0.lifecycle.assigned(tps) }
            // A partition's pause flag outlives its assignment (it may have been revoked while paused): set it
            // explicitly to the current state.
            if !tps.isEmpty {
                _ = pause ? rd_kafka_pause_partitions(rk, partitions) : rd_kafka_resume_partitions(rk, partitions)
            }
            logger.info("kafka partitions assigned", [LogKeys.kafkaPartitions: .string(describe(tps))])
        case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
            revoke(rk, tps, lost: rd_kafka_assignment_lost(rk) != 0)
            if cooperative {
                if let error = rd_kafka_incremental_unassign(rk, partitions) {
                    logger.error(
                        "kafka unassign failed", [LogKeys.error: .string(KafkaError(consuming: error).debugDescription)]
                    )
                }
            } else {
                _ = rd_kafka_assign(rk, nil)
            }
        default:
            logger.error("kafka rebalance error", [LogKeys.error: .string(KafkaError(event).description)])
            revoke(rk, tps, lost: true)
            if cooperative {
                if let error = rd_kafka_incremental_unassign(rk, partitions) { rd_kafka_error_destroy(error) }
            } else {
                _ = rd_kafka_assign(rk, nil)
            }
        }
    }

    /// Drops waiting messages of `tps`, waits (bounded) for their running handlers, commits synchronously unless
    /// the partitions were lost, and forgets them.
    private func revoke(_ rk: OpaquePointer, _ tps: [TopicPartition], lost: Bool) {
        let revoked = Set(tps)
        let wait = state.withLock { $0.lifecycle.revoking(revoked, lost: lost) }
        let unfinished = wait ? waitForHandlers(in: revoked, until: .now + revokeTimeout) : 0
        let commits = state.withLock { $0.lifecycle.revokeCommits(revoked, lost: lost) }
        if !commits.isEmpty { commit(rk, commits, async: false) }
        state.withLock { $0.lifecycle.revoked(tps) }
        var fields: [String: LogValue] = [LogKeys.kafkaPartitions: .string(describe(tps))]
        if unfinished > 0 { fields[LogKeys.kafkaUnfinished] = .int(unfinished) }
        if lost { fields[LogKeys.kafkaLost] = true }
        logger.info("kafka partitions revoked", fields)
    }

    /// Blocks the poll thread until the partitions' handlers finished or the deadline passed; returns how many
    /// are still running.
    private func waitForHandlers(in partitions: Set<TopicPartition>?, until deadline: ContinuousClock.Instant) -> Int {
        while true {
            let outstanding = state.withLock { $0.lifecycle.outstanding(in: partitions) }
            if outstanding == 0 || ContinuousClock.now >= deadline { return outstanding }
            usleep(2000)
        }
    }

    private func drainAndClose(_ rk: OpaquePointer) {
        state.withLock { $0.lifecycle.drain() }
        setPaused(rk, true)
        let deadline = ContinuousClock.now + drainTimeout
        // Keep polling (rebalances, commit results) while handlers finish; messages polled now are not handled
        // and, being beyond every tracked offset, are never committed.
        while state.withLock({ $0.lifecycle.outstanding() }) > 0, ContinuousClock.now < deadline {
            serviceCommitsAndPause(rk)
            if let message = rd_kafka_consumer_poll(rk, 10) { rd_kafka_message_destroy(message) }
        }
        let (commits, unfinished) = state.withLock { $0.lifecycle.close() }
        if !commits.isEmpty { commit(rk, commits, async: false) }
        let closed = rd_kafka_consumer_close(rk)
        var fields: [String: LogValue] = [:]
        if unfinished > 0 { fields[LogKeys.kafkaUnfinished] = .int(unfinished) }
        if closed != RD_KAFKA_RESP_ERR_NO_ERROR { fields[LogKeys.error] = .string(KafkaError(closed).description) }
        logger.info("kafka consumer closed", fields)
    }

    private func describe(_ tps: [TopicPartition]) -> String {
        tps.map(\.description).sorted().joined(separator: ",")
    }
}

/// Falls back to plain (un)assignment when the consumer's Swift side is gone.
private let rebalanceCallback:
    @convention(c) (
        OpaquePointer?, rd_kafka_resp_err_t, UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?,
        UnsafeMutableRawPointer?
    ) -> Void = { rk, event, partitions, opaque in
        guard let rk else { return }
        if let partitions, let hook = CallbackContext.from(opaque)?.rebalanceHook, hook(rk, event, partitions) {
            return
        }
        let cooperative = rd_kafka_rebalance_protocol(rk).map { String(cString: $0) } == "COOPERATIVE"
        if cooperative {
            let error =
                event == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS
                ? rd_kafka_incremental_assign(rk, partitions) : rd_kafka_incremental_unassign(rk, partitions)
            if let error { rd_kafka_error_destroy(error) }
        } else {
            _ = rd_kafka_assign(rk, event == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS ? partitions : nil)
        }
    }

private let offsetCommitCallback:
    @convention(c) (
        OpaquePointer?, rd_kafka_resp_err_t, UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?,
        UnsafeMutableRawPointer?
    ) -> Void = { _, err, offsets, opaque in
        CallbackContext.from(opaque)?.commitHook?(err, offsets)
    }
