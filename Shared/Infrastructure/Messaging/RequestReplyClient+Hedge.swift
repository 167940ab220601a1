import Contracts
import Kafka
import Runtime

extension RequestReplyClient {
    /// The hedge of an idempotent read (copies to other partitions), sent by the deadline sweep at the command's hedge
    /// delay unless the request was answered by then, or at once when the first copy landed on a stalled partition
    /// (`PartitionStalls`); nil for commands with side effects or when hedging is off.
    func hedge(
        _ command: OutgoingCommand, topic: String, headers: [KafkaHeader], deadline: ContinuousClock.Instant,
        firstCopy: FirstCopy
    ) -> ReplyWaiters.Hedge? {
        guard command.isIdempotentRead, let delay = hedger.delay(for: command.name, topic: topic) else { return nil }
        let (producer, hedger, logger) = (producer, hedger, logger)
        let service = command.service.rawValue
        return ReplyWaiters.Hedge(at: .now + delay) {
            let remainingMs = Int64((deadline - ContinuousClock.now) / .milliseconds(1))
            guard remainingMs > 0 else { return }
            let first = firstCopy.partition
            let stalled = first.map { hedger.isStalled(topic: topic, partition: $0) } ?? false
            // Due at its delay, the first copy is overdue, unless its partition is stalled already (a read hedged
            // at once, or the stall's probe: the stall holds while it is out).
            if let first, !stalled { hedger.overdue(topic: topic, partition: first, sentAt: firstCopy.sentAt) }
            let targets = hedger.partitions(of: topic, awayFrom: first)
            guard hedger.mayHedge(aroundStall: stalled && targets.answering) else {
                MessagingMetrics.hedges(service: service, outcome: "over_budget").increment()
                return
            }
            let copy = headers.map { header in
                switch header.key {
                case MessageHeaders.budgetMs: KafkaHeader(MessageHeaders.budgetMs, String(remainingMs))
                case MessageHeaders.sentAtMs: KafkaHeader(MessageHeaders.sentAtMs, String(Timestamp.nowMillis()))
                default: header
                }
            }
            for partition in targets.partitions {
                do {
                    // Its delivery report changes nothing: the first copy still waits, whatever becomes of this one.
                    try producer.enqueue(
                        topic: topic, partition: partition, key: command.key.map { Array($0.utf8) },
                        value: command.body, headers: copy
                    ) { _ in }
                    MessagingMetrics.hedges(service: service, outcome: "sent").increment()
                } catch {
                    MessagingMetrics.hedges(service: service, outcome: "refused").increment()
                    logger.debug(
                        "hedge not enqueued",
                        [
                            LogKeys.requestId: .string(command.requestId),
                            LogKeys.error: .string(String(describing: error)),
                        ])
                }
            }
        }
    }
}
