import Contracts
import FoundationEssentials
import Kafka
import Runtime
import Synchronization

/// The gateway's side of request/reply over Kafka.
///
/// Reply scheme: one reply topic per gateway instance, `Topics.replies(gatewayInstance:)`, created at start with
/// one partition and a short retention, read from its end by a `KafkaPartitionReader`. Services reply to the
/// topic named in `mv-reply-to`, always to partition 0, keyed by the correlation id, so the scheme also works if
/// the topic was auto-created with more partitions. Waiters are keyed by correlation id (a UUID string).
///
/// Load shedding: at most `maxInFlight` requests wait at once (all services together), and each service gets an
/// adaptive cap (`AdmissionLimit`) driven by the queueing delay its replies report, so past a service's capacity
/// the excess is refused at once (`.unavailable("overloaded")`) while the admitted requests stay fast.
///
/// Hedging: an idempotent read (`OutgoingCommand.isIdempotentRead`) still unanswered after its command's hedge delay
/// (`HedgeDelay`: p95 of recent latencies, floored and capped) is sent again, same correlation id, to other
/// partitions (`HedgeSettings`); the first reply wins and the others are dropped and counted (`hedge_loser`). A read
/// whose first copy lands on a partition that stopped answering is hedged at once (`PartitionStalls`).
public final class RequestReplyClient: Service {
    public let name: String
    /// The topic this instance reads replies from.
    public let replyTopic: String
    let producer: KafkaProducer
    private let reader: KafkaPartitionReader
    private let waiters: ReplyWaiters
    private let maxInFlight: Int
    private let admission: Admission
    let hedger: Hedger
    let logger: Logger
    private let statistics: Statistics
    private let stopped = OneShotSignal()
    private let closing = Atomic<Bool>(false)

    /// Counts of replies this instance dropped.
    public struct DroppedReplies: Sendable, Equatable {
        public var late: Int
        public var duplicate: Int
        public var unknown: Int
        /// The slower copies of hedged requests.
        public var hedgeLosers: Int

        public init(late: Int = 0, duplicate: Int = 0, unknown: Int = 0, hedgeLosers: Int = 0) {
            self.late = late
            self.duplicate = duplicate
            self.unknown = unknown
            self.hedgeLosers = hedgeLosers
        }
    }

    private init(
        replyTopic: String, producer: KafkaProducer, reader: KafkaPartitionReader, waiters: ReplyWaiters,
        maxInFlight: Int, admission: Admission, hedger: Hedger, logger: Logger, statistics: Statistics
    ) {
        self.name = "request-reply"
        self.replyTopic = replyTopic
        self.producer = producer
        self.reader = reader
        self.waiters = waiters
        self.maxInFlight = maxInFlight
        self.admission = admission
        self.hedger = hedger
        self.logger = logger
        self.statistics = statistics
    }

    /// How often passed budgets are answered `.timedOut`: a request times out at most this late.
    static let deadlineTick: Duration = .milliseconds(10)

    /// Creates this instance's reply topic if missing and positions its reader at the end, which hands each reply
    /// to its waiting request from then on; `run()` ends passed budgets (a request made before `run()` starts waits
    /// past its budget until then). `instanceId` should be stable per replica (characters outside `[A-Za-z0-9._-]`
    /// become `-`).
    /// `queueTarget` is the queueing delay above which a service counts as overloaded (`AdmissionLimit`).
    public static func make(
        configuration: KafkaConfiguration, instanceId: String, producer: KafkaProducer, maxInFlight: Int,
        queueTarget: Duration = .milliseconds(25), hedging: HedgeSettings = HedgeSettings(), logger: Logger
    ) async throws -> RequestReplyClient {
        let replyTopic = Topics.replies(gatewayInstance: sanitize(instanceId))
        let logger = logger.with([LogKeys.kafkaReplyTopic: .string(replyTopic)])
        try await KafkaAdmin.ensureTopics(
            configuration: configuration,
            specs: [KafkaAdmin.TopicSpec(name: replyTopic, partitions: 1, configs: ["retention.ms": "3600000"])],
            timeout: .seconds(30), logger: logger)
        let waiters = ReplyWaiters()
        let statistics = Statistics()
        // Told of each reply due (`expectMessage` on a send, and by the deadline sweep while requests wait), so
        // its idle probes only catch replies nobody waits for: seldom.
        let reader = try KafkaPartitionReader.make(
            configuration: configuration, topic: replyTopic, partition: 0, urgency: .background, logger: logger
        ) { [waiters, statistics, logger] message in
            Self.dispatch(message, to: waiters, statistics: statistics, logger: logger)
        }
        do {
            try await reader.waitUntilReady(timeout: .seconds(30))
        } catch {
            reader.close()
            throw error
        }
        // New requests are refused while no broker is reachable (the producer refuses the send: 503, nothing done).
        // Waiting requests keep waiting: their commands may already be in the broker's log and be carried out when
        // it answers again, so failing them would tell the client "not done" about work that gets done.
        producer.onAvailabilityChange { [weak waiters, logger] available in
            guard !available else { return }
            logger.warning(
                "no kafka broker reachable; refusing new requests, waiting ones keep their budgets",
                [LogKeys.requestsWaiting: .int(waiters?.count ?? 0)])
        }
        // Hedges go only to partitions known to exist (topics auto-created by a broker get its default count).
        let partitionCounts =
            hedging.enabled
            ? try await KafkaAdmin.partitionCounts(configuration: configuration, timeout: .seconds(30), logger: logger)
            : [:]
        logger.info("request/reply client ready", [LogKeys.kafkaOffset: .int(Int(reader.startOffset ?? -1))])
        return RequestReplyClient(
            replyTopic: replyTopic, producer: producer, reader: reader, waiters: waiters,
            maxInFlight: max(1, maxInFlight), admission: Admission(target: queueTarget, maximum: max(1, maxInFlight)),
            hedger: Hedger(settings: hedging, partitionCounts: partitionCounts), logger: logger, statistics: statistics)
    }

    deinit {
        waiters.close()
        reader.close()
    }

    /// Sends the command to its service's command topic and awaits the reply; see `request(_:topic:budget:)`.
    public func request(_ command: OutgoingCommand, budget: Duration) async throws(RequestError) -> Reply {
        try await request(command, topic: command.service.commandTopic, budget: budget)
    }

    /// Sends the command to `topic` with headers correlation id, request id, reply-to, budget-ms (remaining),
    /// sent-at-ms and command name, and awaits the reply until the budget ends (`.timedOut`, at most `deadlineTick`
    /// late). Throws `.unavailable` at once when the producer cannot enqueue (e.g. no broker reachable) or
    /// `maxInFlight` requests are already waiting, and when the delivery certainly failed, the client shuts down or
    /// the task is cancelled (the waiter is cleaned up): `.unavailable` always means the command was not carried
    /// out by this request. A command sent before the brokers became unreachable keeps waiting for its reply.
    public func request(_ command: OutgoingCommand, topic: String, budget: Duration) async throws(RequestError)
        -> Reply
    {
        let started = ContinuousClock.now
        let deadline = started + budget
        let service = command.service.rawValue
        guard budget > .zero else {
            MessagingMetrics.requests(service: service, outcome: "timeout").increment()
            throw .timedOut
        }
        guard admission.acquire(service) else {
            MessagingMetrics.requests(service: service, outcome: "shed").increment()
            throw .unavailable("overloaded")
        }
        var completion = AdmissionLimit.Completion.failed
        defer { admission.release(service, completion) }
        let correlationId = UUID().uuidString.lowercased()
        let remainingMs = max(1, Int64((deadline - ContinuousClock.now) / .milliseconds(1)))
        let headers = [
            KafkaHeader(MessageHeaders.correlationId, correlationId),
            KafkaHeader(MessageHeaders.requestId, command.requestId),
            KafkaHeader(MessageHeaders.replyTo, replyTopic),
            KafkaHeader(MessageHeaders.budgetMs, String(remainingMs)),
            KafkaHeader(MessageHeaders.sentAtMs, String(Timestamp.nowMillis())),
            KafkaHeader(MessageHeaders.command, command.name),
        ]
        let firstCopy = FirstCopy(sentAt: started)
        let hedge = hedge(command, topic: topic, headers: headers, deadline: deadline, firstCopy: firstCopy)
        let hedgeable = hedge != nil
        switch waiters.register(
            correlationId, limit: closing.load(ordering: .acquiring) ? 0 : maxInFlight, timeout: (budget, deadline),
            hedge: hedge)
        {
        case .registered:
            break
        case .overCapacity where closing.load(ordering: .acquiring), .closed:
            MessagingMetrics.requests(service: service, outcome: "unavailable").increment()
            throw .unavailable("shutting down")
        case .overCapacity:
            MessagingMetrics.requests(service: service, outcome: "overloaded").increment()
            throw .unavailable("too many requests waiting")
        }
        MessagingMetrics.requestsWaiting.add(1)
        defer { MessagingMetrics.requestsWaiting.add(-1) }

        reader.expectMessage()  // an idle reply reader fetches continuously again before the reply is due
        do {
            try producer.enqueue(
                topic: topic, key: command.key.map { Array($0.utf8) }, value: command.body, headers: headers
            ) { [waiters, hedger] result in
                switch result {
                case .success(let delivery):
                    firstCopy.landed(on: delivery.partition)
                    // A stalled partition (not its probe): the hedge goes with the next sweep instead of after the
                    // hedge delay.
                    if hedgeable, hedger.hedgesAtOnce(topic: topic, partition: delivery.partition) {
                        waiters.hedgeNow(correlationId)
                    }
                // Only a delivery that certainly did not reach the broker is "not done"; one that may have (timed
                // out after sending) waits for its reply until the budget, then is a 504 (unknown), never a 503.
                case .failure(let error) where !error.possiblyDelivered:
                    waiters.resolve(correlationId, .failed(error.description))
                case .failure:
                    break
                }
            }
        } catch {
            waiters.unregister(correlationId)
            MessagingMetrics.requests(service: service, outcome: "unavailable").increment()
            logger.warning(
                "command not enqueued",
                [
                    LogKeys.kafkaTopic: .string(topic), LogKeys.requestId: .string(command.requestId),
                    LogKeys.error: .string(error.description),
                ])
            throw .unavailable(error.description)
        }

        // The deadline sweep in `run()` answers `.timedOut` once the budget has passed.
        switch await waiters.wait(correlationId) {
        case .reply(let message):
            completion = .replied(
                queued: message.header(MessageHeaders.queuedMs).flatMap { Int64($0) }.map { .milliseconds($0) })
            MessagingMetrics.requests(service: service, outcome: "reply").increment()
            MessagingMetrics.requestDuration(service: service).observe(since: started)
            if command.isIdempotentRead {
                hedger.observe(command.name, .now - started)
                if hedgeable, let partition = message.header(MessageHeaders.partition).flatMap({ Int32($0) }) {
                    hedger.answered(topic: topic, partition: partition, sentAt: started)
                }
            }
            return KafkaTracing.receive(message) { Self.reply(from: message, logger: logger) }
        case .timedOut:
            completion = .timedOut
            MessagingMetrics.requests(service: service, outcome: "timeout").increment()
            throw .timedOut
        case .cancelled:
            MessagingMetrics.requests(service: service, outcome: "cancelled").increment()
            throw .unavailable("cancelled")
        case .failed(let reason):
            MessagingMetrics.requests(service: service, outcome: "unavailable").increment()
            logger.warning(
                "command not delivered",
                [
                    LogKeys.kafkaTopic: .string(topic), LogKeys.requestId: .string(command.requestId),
                    LogKeys.error: .string(reason),
                ])
            throw .unavailable(reason)
        case .closed:
            MessagingMetrics.requests(service: service, outcome: "unavailable").increment()
            throw .unavailable("shutting down")
        }
    }

    /// Requests currently waiting for a reply.
    public var waiting: Int { waiters.count }

    /// Replies dropped by this instance so far.
    public var droppedReplies: DroppedReplies { statistics.snapshot }

    /// Ends passed budgets until `shutdown()` closes the reader (replies reach their waiters on the reader's own
    /// thread) and returns when the shutdown is done. A reader that stops on its own ends `run()` at once (the
    /// service group then stops the binary).
    public func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            // Budgets end here: one sweep every `deadlineTick` for all waiting requests, instead of a task group with
            // a sleeping child per request (~34k instructions each); parked while no request waits. While requests
            // wait it also keeps the reply reader fetching (a send does for 2 s; a slower reply must not wait for
            // an idle probe).
            group.addTask { [waiters, reader] in
                while !waiters.isClosed, !Task.isCancelled {
                    await waiters.untilWaiting()
                    try? await Task.sleep(for: Self.deadlineTick)
                    waiters.expire(now: .now)
                    if waiters.count > 0 { reader.expectMessage() }
                }
            }
            await readerStopped()
            group.cancelAll()
        }
    }

    /// Hands a reply to its waiting request, on the reader's poll thread; counts and logs what is dropped.
    private static func dispatch(
        _ message: KafkaMessage, to waiters: ReplyWaiters, statistics: Statistics, logger: Logger
    ) {
        let correlationId = message.header(MessageHeaders.correlationId)
        guard let drop = waiters.deliver(message, correlationId: correlationId) else { return }
        statistics.count(drop)
        MessagingMetrics.repliesDropped(drop.rawValue).increment()
        logger.debug(
            "reply dropped",
            [LogKeys.reason: .string(drop.rawValue), LogKeys.correlationId: .string(correlationId ?? "")])
    }

    /// Returns when the reader has stopped: after `shutdown()` once it is done, or at once (failing every waiting
    /// request) when the reader stopped on its own.
    private func readerStopped() async {
        await reader.closed()
        guard closing.load(ordering: .acquiring) else {
            waiters.close()
            logger.error("reply reader stopped")
            return
        }
        await stopped.wait()
    }

    /// Refuses new requests, lets waiting ones finish (up to 5 s; the HTTP server has already drained), answers
    /// the rest `.unavailable`, and closes the reader.
    public func shutdown() async {
        closing.store(true, ordering: .releasing)
        let waiters = self.waiters
        _ = await withDeadline(.seconds(5)) {
            while waiters.count > 0, !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(10))
            }
            return true
        }
        waiters.close()
        reader.close()
        await reader.closed()
        stopped.fire()
    }

    package static func reply(from message: KafkaMessage, logger: Logger) -> Reply {
        guard let status = message.header(MessageHeaders.status).flatMap({ Int($0) }), (100...599).contains(status)
        else {
            logger.error("reply without a valid status", [LogKeys.kafkaOffset: .int(Int(message.offset))])
            return .error(.internalError)
        }
        var headers: [(String, String)] = []
        let prefix = MessageHeaders.httpHeaderPrefix
        for header in message.headers where header.key.hasPrefix(prefix) && header.key.count > prefix.count {
            headers.append((String(header.key.dropFirst(prefix.count)), String(decoding: header.value, as: UTF8.self)))
        }
        return Reply(status: status, body: message.value, headers: headers)
    }

    /// `instanceId` as it appears in the reply topic's name: Kafka topic names allow `[a-zA-Z0-9._-]`, so every
    /// other character becomes `-`; at most 180 characters; `default` when empty.
    public static func sanitize(_ instanceId: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        let cleaned = String(instanceId.map { allowed.contains($0) ? $0 : "-" }.prefix(180))
        return cleaned.isEmpty ? "default" : cleaned
    }
}

/// One `AdmissionLimit` per service, under a lock.
private final class Admission: Sendable {
    private let target: Duration
    private let maximum: Int
    private let limits = Mutex<[String: AdmissionLimit]>([:])

    init(target: Duration, maximum: Int) {
        self.target = target
        self.maximum = maximum
    }

    func acquire(_ service: String) -> Bool {
        limits.withLock { all in
            all[service, default: AdmissionLimit(target: target, maximum: maximum)].acquire()
        }
    }

    func release(_ service: String, _ completion: AdmissionLimit.Completion) {
        let limit = limits.withLock { all -> Int in
            all[service]?.release(completion, now: .now)
            return Int(all[service]?.limit ?? 0)
        }
        MessagingMetrics.admissionLimit(service: service).set(Int64(limit))
    }
}

/// Per-instance counts of dropped replies.
private final class Statistics: Sendable {
    private let late = Atomic<Int>(0)
    private let duplicate = Atomic<Int>(0)
    private let unknown = Atomic<Int>(0)
    private let hedgeLosers = Atomic<Int>(0)

    func count(_ drop: ReplyWaiters.Drop) {
        switch drop {
        case .late: late.add(1, ordering: .relaxed)
        case .duplicate: duplicate.add(1, ordering: .relaxed)
        case .unknown: unknown.add(1, ordering: .relaxed)
        case .hedgeLoser: hedgeLosers.add(1, ordering: .relaxed)
        }
    }

    var snapshot: RequestReplyClient.DroppedReplies {
        .init(
            late: late.load(ordering: .relaxed), duplicate: duplicate.load(ordering: .relaxed),
            unknown: unknown.load(ordering: .relaxed), hedgeLosers: hedgeLosers.load(ordering: .relaxed))
    }
}
