import Contracts
import ExpoPush
import FoundationEssentials
import Postgres
import PushCore
import Runtime
import Synchronization

/// The central delivery facade (docs/COMPATIBILITY.md#push-delivery). For each batch of at most 100 physical tokens,
/// one after another and inside the process-wide FIFO `HandoffGate`, on ONE reserved connection:
///
/// 1. **Select** the next opted-in, actively claimed tokens of the recipients (byte order, after the previous batch).
/// 2. **Claim** in one transaction: sorted transaction advisory locks, delete the tokens' expired delivery claims, lock
///    the candidate rows (`FOR UPDATE OF c, p`), skip a token whose dedupe `(slot, key)` equals `last_sent[slot]`
///    (delivered) or has a live lease (busy: retried later), insert one delivery claim per dedupe item sharing a new
///    `delivery_group`, leased for `lease`.
/// 3. **Handoff**: wait for the shared Expo pace, take session-level `pg_advisory_lock` per token (sorted), renew the
///    leases (`now() + lease`: counted from lock acquisition) while re-validating claim, lease and consent, send only
///    the valid ones to Expo (docs/COMPATIBILITY.md#expo), holding the locks through the call.
/// 4. **Finalize** in one transaction while the session locks are still held (so no writer can slip in between):
///    for groups whose lease is alive on the active claim, `DeviceNotRegistered` → delete the row and tombstone the
///    claim, success → merge `{slot: key}` into `prefs.last_sent` and remember the ticket for receipts; then delete the
///    batch's delivery claims. Then unlock in reverse order; the pool always runs `pg_advisory_unlock_all()`.
///
/// A redelivered request is harmless: delivered tokens are skipped by `last_sent`, in-flight ones by their lease.
/// Expired leases are retryable and never confer ownership. Never throws.
///
/// This type only orchestrates: the decisions are pure values (`DeliveryPlan`: recipients, opt-in, dedupe and ticket
/// outcomes; `DeliveryRun`: pages and retry rounds; `HandoffBatch`: one batch's lifecycle) and the SQL is
/// `DeliveryClaims`'; here the gate, the reserved connection, the pace, the session locks and the Expo call.
public final class PushDispatcher: Sendable {
    public struct Settings: Sendable {
        /// Delivery lease (≥ 90 s in production).
        public var lease: Duration
        /// Closed production gate: nothing is sent, every message fails.
        public var dispatchEnabled: Bool
        public var receiptDelay: Duration
        /// Tokens per batch (Expo's limit, 100).
        public var batchSize: Int

        public init(
            lease: Duration, dispatchEnabled: Bool, receiptDelay: Duration, batchSize: Int = PushConfiguration.batchSize
        ) {
            self.lease = lease
            self.dispatchEnabled = dispatchEnabled
            self.receiptDelay = receiptDelay
            self.batchSize = min(ExpoPushClient.maxMessagesPerRequest, max(1, batchSize))
        }

        public init(_ configuration: PushConfiguration) {
            self.init(
                lease: configuration.lease, dispatchEnabled: configuration.dispatchEnabled,
                receiptDelay: configuration.receiptDelay)
        }
    }

    private let settings: Settings
    private let claims: DeliveryClaims
    private let pool: PostgresPool
    private let expo: ExpoPushClient
    private let pace: ExpoPace
    private let gate: HandoffGate
    private let logger: Logger
    private let onLockHeld: (@Sendable (Duration) -> Void)?
    private let blockedLog = RateLimitedFlag(interval: .seconds(60))

    /// - Parameters:
    ///   - pool: reserved connections for handoffs; size it to the gate's permits (each handoff holds one).
    ///   - onLockHeld: called with each batch's advisory-lock hold time (benchmarks).
    public init(
        settings: Settings, schema: PushSchema, pool: PostgresPool, expo: ExpoPushClient, pace: ExpoPace,
        gate: HandoffGate, logger: Logger, onLockHeld: (@Sendable (Duration) -> Void)? = nil
    ) {
        self.settings = settings
        self.claims = DeliveryClaims(
            schema: schema, lease: settings.lease, receiptDelay: settings.receiptDelay, batchSize: settings.batchSize)
        self.pool = pool
        self.expo = expo
        self.pace = pace
        self.gate = gate
        self.logger = logger.with([LogKeys.component: "push-dispatcher"])
        self.onLockHeld = onLockHeld
    }

    /// Delivers one request to every opted-in, actively claimed installation of its recipients (or only `tokenId`).
    public func deliver(_ request: PushRequest) async -> DeliverySummary {
        let started = ContinuousClock.now
        let plan = DeliveryPlan(request)
        var summary = DeliverySummary(requestId: request.id, eventKind: plan.eventKind, eventKey: plan.eventKey)
        guard !plan.userIds.isEmpty else { return summary }
        // Tokens busy under another lease (or hit by an error) are retried until that lease could have run out.
        var run = DeliveryRun(batchSize: settings.batchSize, patience: settings.lease + .seconds(10))
        runs: while true {
            switch run.next(now: .now, cancelled: Task.isCancelled) {
            case .batch(let selection):
                let outcome = await batch(plan, selection, into: &summary)
                run.finished(outcome, now: .now)
            case .sleep(let delay):
                try? await Task.sleep(for: delay)
            case .abandonPages:
                logger.error("push request abandoned: database unavailable", [LogKeys.pushRequest: .string(request.id)])
            case .finish(let unavailable):
                summary.giveUp(unavailable)
                break runs
            }
        }
        Metrics.requests.increment()
        Metrics.requestDuration.observe(since: started)
        logger.debug(
            "push request done",
            [
                LogKeys.pushRequest: .string(request.id), LogKeys.pushEventKind: .string(plan.eventKind),
                LogKeys.pushSuccesses: .int(summary.successes), LogKeys.pushFailures: .int(summary.failures),
                LogKeys.pushSkipped: .int(summary.skipped),
                LogKeys.durationMs: .double((ContinuousClock.now - started).inMilliseconds),
            ])
        return summary
    }

    /// One batch under a gate permit on one reserved connection.
    private func batch(_ plan: DeliveryPlan, _ selection: BatchSelection, into summary: inout DeliverySummary) async
        -> BatchOutcome
    {
        do {
            let tally = try await gate.withPermit { [self] in
                Metrics.handoffsInFlight.add(1)
                defer { Metrics.handoffsInFlight.add(-1) }
                return try await pool.withReservedConnection { conn in
                    try await self.handoff(conn, plan, selection)
                }
            }
            summary.add(tally)
            return BatchOutcome(tally)
        } catch {
            summary.errors += 1
            Metrics.batchErrors.increment()
            logger.warning(
                "push batch failed before handoff",
                [LogKeys.pushRequest: .string(plan.request.id), LogKeys.error: .string("\(error)")])
            return BatchOutcome(failed: selection)
        }
    }

    /// Performs `HandoffBatch`'s actions. Errors before the Expo call propagate (the batch is retried); from the call
    /// on, nothing throws: a finalize that fails leaves leases to expire (the delivery may then be retried: at least
    /// once).
    private func handoff(_ conn: PostgresConnection, _ plan: DeliveryPlan, _ selection: BatchSelection) async throws
        -> BatchTally
    {
        var phase = ContinuousClock.now
        func done(_ name: String) {
            let now = ContinuousClock.now
            Metrics.phase(name).observe((now - phase).inSeconds)
            phase = now
        }
        var lockedAt: ContinuousClock.Instant?
        defer {
            if let lockedAt {
                let held = ContinuousClock.now - lockedAt
                Metrics.lockHold.observe(held.inSeconds)
                onLockHeld?(held)
            }
        }
        var batch = HandoffBatch(selection, dispatchEnabled: settings.dispatchEnabled)
        var action = batch.start()
        while true {
            switch action {
            case .select(.after(let cursor)):
                action = batch.selected(try await claims.selectCandidates(conn, plan, after: cursor))
                done("select")
            case .select(.tokens(let tokens)):
                action = batch.selected(tokens)
                done("select")
            case .claim(let tokens):
                action = batch.claimed(try await claims.claim(conn, plan, tokens: tokens))
                done("claim")
            case .pace(let messages):
                await pace.acquire(messages)
                action = batch.paced()
                done("pace")
            case .lock(let tokens):
                try await TokenLocks.lockForSession(conn, tokens)
                lockedAt = ContinuousClock.now
                action = batch.locked()
                done("lock")
            case .revalidate(let groups):
                action = batch.revalidated(try await claims.renewAndValidate(conn, plan, groups: groups))
                done("validate")
            case .send(let groups):
                let issuedAt = Date()
                let tickets = await expo.send(
                    groups.map {
                        PushEnvelope.message(
                            request: plan.request, to: $0.expoToken, installationId: $0.tokenId, deliveryId: $0.id,
                            issuedAt: issuedAt)
                    })
                action = batch.handedOff(tickets)
                countNotifications(batch.tally)
                done("expo")
            case .block(let groups):
                Metrics.blocked.increment(by: Int64(groups.count))
                if blockedLog.shouldFire() {
                    logger.warning(
                        "expo dispatch disabled: production gate closed, notifications counted as failures",
                        [LogKeys.pushMessages: .int(groups.count)])
                }
                action = batch.blocked()
                countNotifications(batch.tally)
                done("expo")
            case .finalize(let work, let attempt):
                do {
                    try await claims.finalize(conn, plan, work)
                    action = batch.finalized()
                } catch {
                    logger.warning(
                        "push finalize failed",
                        [
                            LogKeys.pushRequest: .string(plan.request.id), LogKeys.attempt: .int(attempt),
                            LogKeys.error: .string("\(error)"),
                        ])
                    action = batch.finalizeFailed()
                }
            case .backOff(let delay):
                try? await Task.sleep(for: delay)
                action = batch.backedOff()
            case .unlock(let tokens, let finalized):
                if !finalized { Metrics.batchErrors.increment() }
                done("finalize")
                try? await TokenLocks.unlockSession(conn, tokens)
                action = batch.unlocked()
                done("unlock")
            case .finish(let tally):
                return tally
            }
        }
    }

    private func countNotifications(_ tally: BatchTally) {
        Metrics.notifications("handed_off").increment(by: Int64(tally.successes))
        Metrics.notifications("failed").increment(by: Int64(tally.failures))
    }
}

/// True at most once per interval (for log lines that would otherwise repeat per batch).
final class RateLimitedFlag: Sendable {
    private let interval: Duration
    private let next: Mutex<ContinuousClock.Instant?>

    init(interval: Duration) {
        self.interval = interval
        self.next = Mutex(nil)
    }

    func shouldFire() -> Bool {
        let now = ContinuousClock.now
        return next.withLock { next in
            if let due = next, now < due { return false }
            next = now + interval
            return true
        }
    }
}
