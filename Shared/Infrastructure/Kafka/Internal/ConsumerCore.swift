import CRdKafka
import Foundation
import Runtime
import Synchronization

/// The consumer's C calls and threads, shared by the public object, the poll thread and handler tasks; every
/// decision is `ConsumerLifecycle`'s.
final class ConsumerCore: Sendable {
    typealias Handler = @Sendable (KafkaMessage) async -> Void

    private struct State {
        var handler: Handler?
        var lifecycle = ConsumerLifecycle()
        var failure: KafkaError?
        /// A revocation waits for handlers: each finish wakes it.
        var awaitingHandlers = false
        /// Pauses an idle assignment between probes (dev broker); nil fetches continuously.
        var pacer: IdleFetchPacer?
        /// Whether the whole assignment was last paused (true) or resumed (false); nil after an assignment change.
        var appliedPause: Bool? = false
        /// Partitions resumed for the current probe, and how many reported their end since.
        var probePartitions = 0
        var probeAnswers = 0
        /// Where the assignment's fetches stand, kept while the pacer is on: a probe whose partitions' ends have
        /// not moved is answered without resuming them.
        var positions = FetchPositions()
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
    private let handlersFinished = ThreadWakeup()
    let stopped = OneShotSignal()

    init(
        handle: RDKafkaHandle, queue: RDKafkaQueue, groupId: String, topics: [String], logger: Logger,
        drainTimeout: Duration, revokeTimeout: Duration, idleFetch: IdleFetchPacer.Settings?
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
        state.withLock { $0.pacer = idleFetch.map { IdleFetchPacer(settings: $0, now: .now) } }
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
            let now = ContinuousClock.now
            let wait = state.withLock { s in s.pacer?.pollWait(now: now, settled: s.lifecycle.isSettled) }
            guard let message = rd_kafka_consumer_poll(rk, wait?.clampedMilliseconds ?? 100) else { continue }
            handlePolled(message)
            rd_kafka_message_destroy(message)
        }
        drainAndClose(rk)
    }

    private func handlePolled(_ message: UnsafeMutablePointer<rd_kafka_message_t>) {
        let err = message.pointee.err
        if err != RD_KAFKA_RESP_ERR_NO_ERROR {
            if err == RD_KAFKA_RESP_ERR__PARTITION_EOF { return partitionEnded(message) }
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

    /// A partition's fetch reached its end; during an idle probe, all of them end the probe.
    private func partitionEnded(_ message: UnsafeMutablePointer<rd_kafka_message_t>) {
        let topic = message.pointee.rkt.flatMap { rd_kafka_topic_name($0) }.map { String(cString: $0) } ?? ""
        let tp = TopicPartition(topic: topic, partition: message.pointee.partition)
        state.withLock { s in
            s.positions.ended(tp, at: message.pointee.offset)
            guard s.pacer?.isProbing == true else { return }
            s.probeAnswers += 1
            if s.probeAnswers >= s.probePartitions { _ = s.pacer?.probeAnswered(now: .now) }
        }
    }

    private func errorText(_ message: UnsafeMutablePointer<rd_kafka_message_t>) -> String? {
        rd_kafka_message_errstr(message).map { String(cString: $0) }
    }

    private func admit(_ message: KafkaMessage) {
        let now = ContinuousClock.now
        let start: (Handler, ConsumerLifecycle.Work)? = state.withLock { s in
            if s.pacer != nil {
                _ = s.pacer?.activity(now: now)
                s.positions.consumed(
                    TopicPartition(topic: message.topic, partition: message.partition), offset: message.offset)
            }
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
        let (handler, action, awaited) = state.withLock { s in
            (s.handler, s.lifecycle.finished(work), s.awaitingHandlers)
        }
        if let next = action.next, let handler { spawn(handler, next) }
        if action.wake { queue.wake() }
        if awaited { handlersFinished.signal() }
    }

    /// Commits finished work asynchronously and pauses or resumes the assignment: paused at the cap, while
    /// stopping, and while the idle pacer rests. An idle probe first asks the leaders for the partitions' ends and
    /// resumes only when one moved past where this consumer's fetches stand (or is unknown).
    private func serviceCommitsAndPause(_ rk: OpaquePointer) {
        let now = ContinuousClock.now
        let (commits, change, probe) = state.withLock { s in
            let commits = s.lifecycle.tick(now: now).commits
            _ = s.pacer?.tick(now: now)
            let paused = s.lifecycle.pausedForCap || s.lifecycle.isStopping || s.pacer?.isFetching == false
            guard paused != s.appliedPause else { return (commits, Bool?.none, false) }
            let probe = !paused && s.appliedPause == true && s.pacer?.isProbing == true
            s.appliedPause = paused
            return (commits, paused, probe)
        }
        if !commits.isEmpty { commit(rk, commits, async: true) }
        if probe, caughtUp(rk) {
            state.withLock { s in
                s.appliedPause = true
                _ = s.pacer?.probeAnswered(now: .now)
            }
            return
        }
        if let paused = change {
            let partitions = setPaused(rk, paused)
            state.withLock { s in (s.probePartitions, s.probeAnswers) = (partitions, 0) }
        }
    }

    /// Whether every assigned partition's end, as its leader reports it now (one ListOffsets per leader, at most
    /// 100 ms on this thread), is where this consumer's fetches stand: then an idle probe has nothing to fetch.
    private func caughtUp(_ rk: OpaquePointer) -> Bool {
        var assignment: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        guard rd_kafka_assignment(rk, &assignment) == RD_KAFKA_RESP_ERR_NO_ERROR, let assignment else { return false }
        defer { rd_kafka_topic_partition_list_destroy(assignment) }
        let ends = endOffsets(rk, assignment)
        return state.withLock { $0.positions.caughtUp(ends: ends) }
    }

    /// Pauses or resumes the whole assignment; returns its size.
    @discardableResult
    private func setPaused(_ rk: OpaquePointer, _ paused: Bool) -> Int {
        var assignment: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        guard rd_kafka_assignment(rk, &assignment) == RD_KAFKA_RESP_ERR_NO_ERROR, let assignment else { return 0 }
        defer { rd_kafka_topic_partition_list_destroy(assignment) }
        guard assignment.pointee.cnt > 0 else { return 0 }
        if paused {
            _ = rd_kafka_pause_partitions(rk, assignment)
        } else {
            _ = rd_kafka_resume_partitions(rk, assignment)
            wakeFetchers(rk, assignment)
        }
        return Int(assignment.pointee.cnt)
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
        let tps = RDKafkaTopicPartitionList.entries(of: partitions).map(\.tp)
        switch event {
        case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
            if let error = applyRebalance(rk, assign: true, partitions) {
                logger.error("kafka assign failed", [LogKeys.error: .string(error.debugDescription)])
            }
            let now = ContinuousClock.now
            let pause = state.withLock { s in
                // New partitions are fetched at once; the next turn sets the whole assignment to one state.
                _ = s.pacer?.activity(now: now)
                s.appliedPause = nil
                s.positions.forget(tps)
                return s.lifecycle.assigned(tps)
            }
            // A partition's pause flag outlives its assignment (it may have been revoked while paused): set it
            // explicitly to the current state.
            if !tps.isEmpty {
                _ = pause ? rd_kafka_pause_partitions(rk, partitions) : rd_kafka_resume_partitions(rk, partitions)
            }
            logger.info("kafka partitions assigned", [LogKeys.kafkaPartitions: .string(describe(tps))])
        case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
            state.withLock { $0.positions.forget(tps) }
            revoke(rk, tps, lost: rd_kafka_assignment_lost(rk) != 0)
            if let error = applyRebalance(rk, assign: false, partitions) {
                logger.error("kafka unassign failed", [LogKeys.error: .string(error.debugDescription)])
            }
        default:
            logger.error("kafka rebalance error", [LogKeys.error: .string(KafkaError(event).description)])
            state.withLock { $0.positions.forget(tps) }
            revoke(rk, tps, lost: true)
            _ = applyRebalance(rk, assign: false, partitions)
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

    /// Blocks the poll thread until the partitions' handlers finished (each finish wakes it) or the deadline
    /// passed; returns how many are still running.
    private func waitForHandlers(in partitions: Set<TopicPartition>?, until deadline: ContinuousClock.Instant) -> Int {
        defer { state.withLock { $0.awaitingHandlers = false } }
        while true {
            let outstanding = state.withLock { s in
                let outstanding = s.lifecycle.outstanding(in: partitions)
                s.awaitingHandlers = outstanding > 0
                return outstanding
            }
            if outstanding == 0 || ContinuousClock.now >= deadline { return outstanding }
            handlersFinished.wait(until: deadline)
        }
    }

    private func drainAndClose(_ rk: OpaquePointer) {
        state.withLock { $0.lifecycle.drain() }
        serviceCommitsAndPause(rk)
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

/// Takes `partitions` (`assign`) or gives them up, incrementally under the cooperative protocol, eagerly (the whole
/// assignment) otherwise; returns librdkafka's error, if any. The one place both rebalance paths (un)assign.
private func applyRebalance(
    _ rk: OpaquePointer, assign: Bool, _ partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
) -> KafkaError? {
    if rd_kafka_rebalance_protocol(rk).map({ String(cString: $0) }) == "COOPERATIVE" {
        let error = assign ? rd_kafka_incremental_assign(rk, partitions) : rd_kafka_incremental_unassign(rk, partitions)
        return error.map { KafkaError(consuming: $0) }
    }
    let result = rd_kafka_assign(rk, assign ? partitions : nil)
    return result == RD_KAFKA_RESP_ERR_NO_ERROR ? nil : KafkaError(result)
}

/// Falls back to plain (un)assignment when the consumer's Swift side is gone.
let rebalanceCallback:
    @convention(c) (
        OpaquePointer?, rd_kafka_resp_err_t, UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?,
        UnsafeMutableRawPointer?
    ) -> Void = { rk, event, partitions, opaque in
        guard let rk else { return }
        if let partitions, let hook = CallbackContext.from(opaque)?.rebalanceHook, hook(rk, event, partitions) {
            return
        }
        _ = applyRebalance(rk, assign: event == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS, partitions)
    }

let offsetCommitCallback:
    @convention(c) (
        OpaquePointer?, rd_kafka_resp_err_t, UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?,
        UnsafeMutableRawPointer?
    ) -> Void = { _, err, offsets, opaque in
        CallbackContext.from(opaque)?.commitHook?(err, offsets)
    }
