import Contracts
import Kafka
import Runtime
import Tracing

/// Runs a service's commands: consumes its command topic in its consumer group and, per message,
/// decodes headers → checks the deadline → calls the handler → produces the reply and awaits its delivery; the
/// offset becomes committable only after that (when the handler passed to the consumer returns).
///
/// - A command whose budget is spent is dropped and counted (`messaging_commands_expired_total{topic}`); the
///   deadline is `now + (budgetMs - max(0, nowMs - sentAtMs))`, so clock skew can only shorten a budget's
///   transit allowance, never extend it. A command without a budget gets `defaultBudget`.
/// - A message without `mv-command` (or with an unparseable budget), or whose handler throws
///   `CommandDecodingError`, goes to the dead-letter topic with the original key, value and headers plus
///   `mv-dlq-error`, `mv-dlq-topic`, `mv-dlq-partition`, `mv-dlq-offset`; if it named a reply topic and a
///   correlation id, the gateway also gets a 500 `{"error":"internal error"}` so it does not wait.
/// - The handler runs with `TaskDeadline.current` set to the deadline less `replyMargin`, so lower layers retry
///   transient failures only while the reply can still arrive. A `TransientFailure` that is still retriable when it
///   reaches the runner is answered with 503 `{"error":"<dependency> unavailable"}`; any other handler error is
///   logged and answered with a 500 `{"error":"internal error"}`.
/// - After-reply work (`Reply.afterReply`) is retried with back-off until it succeeds; the offset stays uncommitted
///   meanwhile, so work that never succeeds here (the process stops) is redelivered, never dropped. Make it
///   idempotent. A partition whose message keeps failing holds its commits (and, at the in-flight cap, its intake).
/// - Replies go to partition 0 of `mv-reply-to`, keyed by the correlation id, with `mv-correlation-id`,
///   `mv-status`, `mv-partition` (the command's partition), `mv-queued-ms` (how long the command waited before its
///   handler started) and an `mv-h-<name>`
///   header per reply header.
public final class CommandRunner: Service {
    /// The deadline given to commands that carry no budget (e.g. scheduled work).
    public static let defaultBudget: Duration = .seconds(300)
    /// Time kept back from a handler's deadline to produce the reply before the gateway gives up.
    public static let replyMargin: Duration = .milliseconds(300)

    public let name: String
    private let consumer: KafkaGroupConsumer

    /// Consumes `service.commandTopic` in the group `service.consumerGroup`.
    public convenience init(
        configuration: KafkaConfiguration, service: ServiceName, producer: KafkaProducer, maxInFlight: Int = 64,
        logger: Logger, handler: @escaping @Sendable (IncomingCommand) async throws -> Reply
    ) throws {
        try self.init(
            configuration: configuration, topic: service.commandTopic, groupId: service.consumerGroup,
            producer: producer, maxInFlight: maxInFlight, logger: logger, handler: handler)
    }

    /// Consumes an explicit topic and group (after-reply effects, tests, tools); dead letters go to
    /// `deadLetterTopic`. `urgency` is `.background` for commands no request waits for.
    public init(
        configuration: KafkaConfiguration, topic: String, groupId: String, deadLetterTopic: String = Topics.deadLetter,
        urgency: FetchUrgency = .prompt, producer: KafkaProducer, maxInFlight: Int = 64, logger: Logger,
        handler: @escaping @Sendable (IncomingCommand) async throws -> Reply
    ) throws {
        let logger = logger.with([LogKeys.kafkaTopic: .string(topic)])
        name = "command-runner.\(topic)"
        MessagingMetrics.registerCommandTopic(topic)
        consumer = try KafkaGroupConsumer.make(
            configuration: configuration, groupId: groupId, topics: [topic], urgency: urgency, logger: logger)
        let processor = CommandProcessor(
            producer: producer, deadLetterTopic: deadLetterTopic, logger: logger, handler: handler)
        consumer.setHandler(maxInFlight: maxInFlight) { message in await processor.process(message) }
    }

    public func run() async throws {
        try await consumer.run()
    }

    /// Stops taking commands, finishes the running ones (their replies included), commits, leaves the group.
    public func shutdown() async {
        await consumer.shutdown()
    }

    /// The group's committed offset for a partition of the command topic (nil when none).
    public func committedOffset(topic: String, partition: Int32) async throws -> Int64? {
        try await consumer.committedOffset(topic: topic, partition: partition)
    }
}

/// Handles one command message; everything it needs, and nothing that refers back to the runner.
package struct CommandProcessor: Sendable {
    let producer: KafkaProducer
    let deadLetterTopic: String
    let logger: Logger
    let handler: @Sendable (IncomingCommand) async throws -> Reply

    func process(_ message: KafkaMessage) async {
        let started = ContinuousClock.now
        let topicLabel = Self.label(message.topic)
        let correlationId = message.header(MessageHeaders.correlationId)
        let replyTo = message.header(MessageHeaders.replyTo)
        let requestId = message.header(MessageHeaders.requestId)
        var fields: [String: LogValue] = [
            LogKeys.kafkaPartition: .int(Int(message.partition)), LogKeys.kafkaOffset: .int(Int(message.offset)),
        ]
        if let requestId { fields[LogKeys.requestId] = .string(requestId) }
        if let correlationId { fields[LogKeys.correlationId] = .string(correlationId) }

        guard let name = message.header(MessageHeaders.command), !name.isEmpty else {
            await deadLetter(message, reason: "missing \(MessageHeaders.command) header", fields: fields)
            await replyInternalError(replyTo: replyTo, correlationId: correlationId, fields: fields)
            MessagingMetrics.commands(topic: topicLabel, outcome: "dead_letter").increment()
            return
        }
        fields[LogKeys.command] = .string(name)

        let deadline: ContinuousClock.Instant
        switch Self.deadline(
            budgetHeader: message.header(MessageHeaders.budgetMs),
            sentAtHeader: message.header(MessageHeaders.sentAtMs),
            nowMs: Timestamp.nowMillis(), now: started)
        {
        case .some(.some(let instant)):
            deadline = instant
        case .some(.none):
            MessagingMetrics.commandsExpired(topic: topicLabel).increment()
            logger.info("command dropped: budget spent", fields)
            return
        case .none:
            await deadLetter(message, reason: "invalid \(MessageHeaders.budgetMs) header", fields: fields)
            await replyInternalError(replyTo: replyTo, correlationId: correlationId, fields: fields)
            MessagingMetrics.commands(topic: topicLabel, outcome: "dead_letter").increment()
            return
        }

        let queuedMs = message.header(MessageHeaders.sentAtMs).flatMap { Int64($0) }.map {
            max(0, Timestamp.nowMillis() - $0)
        }
        let command = IncomingCommand(
            name: name, body: message.value, key: message.keyString, correlationId: correlationId,
            requestId: requestId, deadline: deadline, message: message)
        let reply: Reply
        var outcome = "ok"
        do {
            reply = try await TaskDeadline.$current.withValue(deadline - CommandRunner.replyMargin) {
                try await Tracing.withSpan(name, attributes: [Attribute("mapvest.command", .string(name))]) { _ in
                    try await handler(command)
                }
            }
        } catch let error as CommandDecodingError {
            await deadLetter(message, reason: error.reason, fields: fields)
            await replyInternalError(replyTo: replyTo, correlationId: correlationId, fields: fields)
            MessagingMetrics.commands(topic: topicLabel, outcome: "dead_letter").increment()
            return
        } catch let error as any TransientFailure where error.isRetriable {
            var errorFields = fields
            errorFields["error"] = .string(String(describing: error))
            logger.warning("command failed: dependency unavailable", errorFields)
            reply = .error(503, "\(error.dependency) unavailable")
            outcome = "unavailable"
        } catch {
            var errorFields = fields
            errorFields["error"] = .string(String(describing: error))
            logger.error("command handler failed", errorFields)
            reply = .error(.internalError)
            outcome = "error"
        }
        if let replyTo, let correlationId {
            await send(
                reply, to: replyTo, correlationId: correlationId, partition: message.partition, queuedMs: queuedMs,
                fields: fields)
        }
        if let work = reply.afterReply { await runAfterReply(work, topicLabel: topicLabel, fields: fields) }
        MessagingMetrics.commands(topic: topicLabel, outcome: outcome).increment()
        MessagingMetrics.commandDuration(topic: topicLabel).observe(since: started)
    }

    /// Runs after-reply work until it succeeds (see the type's notes).
    private func runAfterReply(
        _ work: @Sendable () async throws -> Void, topicLabel: String, fields: [String: LogValue]
    ) async {
        do {
            try await Retry.run(
                until: nil, backoff: Backoff(initial: .milliseconds(100), maximum: .seconds(5)),
                onFailure: { error, attempt in
                    MessagingMetrics.afterReplyRetries(topic: topicLabel).increment()
                    var errorFields = fields
                    errorFields["error"] = .string(String(describing: error))
                    errorFields["attempt"] = .int(attempt)
                    logger.warning("after-reply work failed; retrying, offset held", errorFields)
                }, work)
        } catch {
            // The consumer never cancels its handlers; a cancelled one would let its offset be committed.
            logger.error("after-reply work cancelled before it succeeded", fields)
        }
    }

    /// The command's deadline: nil for an unparseable budget, `.some(nil)` when the budget is spent, a default
    /// when there is no budget header.
    package static func deadline(
        budgetHeader: String?, sentAtHeader: String?, nowMs: Int64, now: ContinuousClock.Instant
    )
        -> ContinuousClock.Instant??
    {
        guard let budgetHeader else { return .some(now + CommandRunner.defaultBudget) }
        guard let budgetMs = Int64(budgetHeader.trimmingPrefix(" ")) else { return nil }
        let sentAt = sentAtHeader.flatMap { Int64($0) } ?? nowMs
        let transit = max(0, nowMs - sentAt)
        let remaining = budgetMs - transit
        guard remaining > 0 else { return .some(nil) }
        return .some(now + .milliseconds(remaining))
    }

    private func send(
        _ reply: Reply, to replyTo: String, correlationId: String, partition: Int32? = nil, queuedMs: Int64? = nil,
        fields: [String: LogValue]
    ) async {
        var headers = [
            KafkaHeader(MessageHeaders.correlationId, correlationId),
            KafkaHeader(MessageHeaders.status, String(reply.status)),
        ]
        if let partition { headers.append(KafkaHeader(MessageHeaders.partition, String(partition))) }
        if let queuedMs { headers.append(KafkaHeader(MessageHeaders.queuedMs, String(queuedMs))) }
        for (name, value) in reply.headers {
            headers.append(KafkaHeader(MessageHeaders.httpHeaderPrefix + name.lowercased(), value))
        }
        do {
            _ = try await producer.send(
                topic: replyTo, partition: 0, key: Array(correlationId.utf8), value: reply.body, headers: headers)
        } catch {
            MessagingMetrics.replyFailures.increment()
            var errorFields = fields
            errorFields["kafka.reply_topic"] = .string(replyTo)
            errorFields["error"] = .string(String(describing: error))
            logger.error("reply not delivered", errorFields)
        }
    }

    private func replyInternalError(replyTo: String?, correlationId: String?, fields: [String: LogValue]) async {
        guard let replyTo, let correlationId else { return }
        await send(.error(.internalError), to: replyTo, correlationId: correlationId, fields: fields)
    }

    private func deadLetter(_ message: KafkaMessage, reason: String, fields: [String: LogValue]) async {
        var headers = message.headers.filter { !$0.key.hasPrefix("mv-dlq-") }
        headers.append(KafkaHeader(MessageHeaders.dlqError, String(reason.prefix(1024))))
        headers.append(KafkaHeader(MessageHeaders.dlqTopic, message.topic))
        headers.append(KafkaHeader(MessageHeaders.dlqPartition, String(message.partition)))
        headers.append(KafkaHeader(MessageHeaders.dlqOffset, String(message.offset)))
        var logFields = fields
        logFields["reason"] = .string(String(reason.prefix(1024)))
        do {
            _ = try await producer.send(
                topic: deadLetterTopic, key: message.key, value: message.value, headers: headers)
            MessagingMetrics.deadLetters(topic: Self.label(message.topic)).increment()
            logger.warning("command dead-lettered", logFields)
        } catch {
            MessagingMetrics.replyFailures.increment()
            logFields["error"] = .string(String(describing: error))
            logger.error("dead letter not delivered", logFields)
        }
    }

    static func label(_ topic: String) -> String { KafkaTopicLabels.label(topic) }
}
