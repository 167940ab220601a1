import Contracts
import Crypto
import ExpoPush
import FoundationEssentials
import Postgres
import Runtime
import Synchronization

/// What became of one notification request. Counts only: never tokens, ids, titles or bodies.
public struct DeliverySummary: Sendable, Equatable {
    public var requestId: String
    public var eventKind: String
    public var eventKey: String?
    /// Messages Expo accepted.
    public var successes = 0
    /// Messages not handed off or rejected (includes `invalidTokens` and everything the production gate held back).
    public var failures = 0
    /// Of `failures`: `DeviceNotRegistered` tickets; those installations were pruned.
    public var invalidTokens = 0
    /// Installations that already had this delivery (`last_sent`) or lost consent or their claim before handoff.
    public var skipped = 0
    /// Why the last failures happened.
    public var failureReason: ExpoFailure?
    /// Batches that hit a database error (their tokens were retried until the deadline).
    public var errors = 0

    public init(requestId: String, eventKind: String, eventKey: String?) {
        self.requestId = requestId
        self.eventKind = eventKind
        self.eventKey = eventKey
    }
}

/// The central delivery facade (CONTRACT.md §i.7). For each batch of at most 100 physical tokens, one after another
/// and inside the process-wide FIFO `HandoffGate`, on ONE reserved connection:
///
/// 1. **Select** the next opted-in, actively claimed tokens of the recipients (byte order, after the previous batch).
/// 2. **Claim** in one transaction: sorted transaction advisory locks, delete the tokens' expired delivery claims, lock
///    the candidate rows (`FOR UPDATE OF c, p`), skip a token whose dedupe `(slot, key)` equals `last_sent[slot]`
///    (delivered) or has a live lease (busy: retried later), insert one delivery claim per dedupe item sharing a new
///    `delivery_group`, leased for `lease`.
/// 3. **Handoff**: wait for the shared Expo pace, take session-level `pg_advisory_lock` per token (sorted), renew the
///    leases (`now() + lease`: counted from lock acquisition) while re-validating claim, lease and consent, send only
///    the valid ones to Expo (§i.8), holding the locks through the call.
/// 4. **Finalize** in one transaction while the session locks are still held (so no writer can slip in between):
///    for groups whose lease is alive on the active claim, `DeviceNotRegistered` → delete the row and tombstone the
///    claim, success → merge `{slot: key}` into `prefs.last_sent` and remember the ticket for receipts; then delete the
///    batch's delivery claims. Then unlock in reverse order; the pool always runs `pg_advisory_unlock_all()`.
///
/// A redelivered request is harmless: delivered tokens are skipped by `last_sent`, in-flight ones by their lease.
/// Expired leases are retryable and never confer ownership. Never throws.
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
    private let schema: PushSchema
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
        self.schema = schema
        self.pool = pool
        self.expo = expo
        self.pace = pace
        self.gate = gate
        self.logger = logger.with(["component": "push-dispatcher"])
        self.onLockHeld = onLockHeld
    }

    /// The request as the batches use it.
    struct Plan: Sendable {
        let request: PushRequest
        let userIds: [String]
        let eventKey: String?
        let eventKind: String
        let dedupe: [PushDedupe]
        /// `{slot: key}` merged into `last_sent` on success.
        let dedupeJSON: PostgresJSON
    }

    static func plan(_ request: PushRequest) -> Plan {
        var dedupe: [PushDedupe] = []
        var seenSlots = Set<String>()
        for item in request.dedupe where !item.slot.isEmpty && seenSlots.insert(item.slot).inserted {
            dedupe.append(item)
        }
        // A request without dedupe still needs a claim row (its lease) and protection against redelivery.
        if dedupe.isEmpty { dedupe = [PushDedupe(slot: "mapvest_request", key: request.id)] }
        var map: [String: String] = [:]
        for item in dedupe { map[item.slot] = item.key }
        let json = (try? PostgresJSON(encoding: map)) ?? PostgresJSON("{}")
        return Plan(
            request: request, userIds: Array(Set(request.userIds.filter { !$0.isEmpty })),
            eventKey: request.eventKey?.rawValue,
            eventKind: PushEnvelope.eventKind(request), dedupe: dedupe, dedupeJSON: json)
    }

    /// Delivers one request to every opted-in, actively claimed installation of its recipients (or only `tokenId`).
    public func deliver(_ request: PushRequest) async -> DeliverySummary {
        let started = ContinuousClock.now
        let plan = Self.plan(request)
        var summary = DeliverySummary(requestId: request.id, eventKind: plan.eventKind, eventKey: plan.eventKey)
        guard !plan.userIds.isEmpty else { return summary }
        // Tokens busy under another lease (or hit by an error) are retried until that lease could have run out.
        let patience = settings.lease + .seconds(10)
        var retry = Set<String>()
        var cursor: String?
        var selectFailures = 0
        var selectDeadline: ContinuousClock.Instant?
        while !Task.isCancelled {
            let outcome = await batch(plan, .after(cursor), into: &summary)
            if outcome.failed && outcome.selected.isEmpty {
                selectFailures += 1
                let deadline = selectDeadline ?? ContinuousClock.now + patience
                selectDeadline = deadline
                guard ContinuousClock.now < deadline else {
                    logger.error("push request abandoned: database unavailable", ["push.request": .string(request.id)])
                    break
                }
                try? await Task.sleep(for: Self.retryDelay(selectFailures))
                continue
            }
            selectFailures = 0
            selectDeadline = nil
            retry.formUnion(outcome.retry)
            guard let last = outcome.selected.last, outcome.selected.count >= settings.batchSize else { break }
            cursor = last
        }
        let deadline = ContinuousClock.now + patience
        var round = 0
        while !retry.isEmpty && !Task.isCancelled && ContinuousClock.now < deadline {
            round += 1
            try? await Task.sleep(for: min(Self.retryDelay(round), max(.zero, deadline - ContinuousClock.now)))
            var next = Set<String>()
            let tokens = TokenLocks.sorted(retry)
            for start in stride(from: 0, to: tokens.count, by: settings.batchSize) {
                let chunk = Array(tokens[start..<min(tokens.count, start + settings.batchSize)])
                next.formUnion(await batch(plan, .tokens(chunk), into: &summary).retry)
            }
            retry = next
        }
        if !retry.isEmpty {
            summary.failures += retry.count
            summary.failureReason = summary.failureReason ?? .unavailable
        }
        Metrics.requests.increment()
        Metrics.requestDuration.observe(since: started)
        logger.debug(
            "push request done",
            [
                "push.request": .string(request.id), "push.event_kind": .string(plan.eventKind),
                "push.successes": .int(summary.successes), "push.failures": .int(summary.failures),
                "push.skipped": .int(summary.skipped),
                "duration.ms": .double((ContinuousClock.now - started).inMilliseconds),
            ])
        return summary
    }

    static func retryDelay(_ attempt: Int) -> Duration {
        .milliseconds(min(2000, 25 << min(attempt, 7)))
    }

    enum Selection: Sendable {
        /// The next batch in byte order after this token.
        case after(String?)
        /// These tokens again (sorted, ≤ batch size).
        case tokens([String])
    }

    struct BatchOutcome {
        var selected: [String] = []
        /// Tokens to try again later: under a live lease, or the batch failed before its handoff.
        var retry: [String] = []
        var failed = false
    }

    struct Group: Sendable {
        let id: String
        let tokenId: String
        let userId: String
        let expoToken: String
    }

    /// One batch under a gate permit on one reserved connection.
    private func batch(_ plan: Plan, _ selection: Selection, into summary: inout DeliverySummary) async -> BatchOutcome
    {
        let result: Result<BatchResult, any Error>
        do {
            result = .success(
                try await gate.withPermit { [self] in
                    Metrics.handoffsInFlight.add(1)
                    defer { Metrics.handoffsInFlight.add(-1) }
                    return try await pool.withReservedConnection { conn in
                        try await self.handoff(conn, plan, selection)
                    }
                })
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let batch):
            summary.successes += batch.successes
            summary.failures += batch.failures
            summary.invalidTokens += batch.invalid
            summary.skipped += batch.skipped
            if let reason = batch.failureReason { summary.failureReason = reason }
            return BatchOutcome(selected: batch.selected, retry: batch.busy, failed: false)
        case .failure(let error):
            summary.errors += 1
            Metrics.batchErrors.increment()
            logger.warning(
                "push batch failed before handoff",
                ["push.request": .string(plan.request.id), "error": .string("\(error)")])
            if case .tokens(let tokens) = selection {
                return BatchOutcome(selected: tokens, retry: tokens, failed: true)
            }
            return BatchOutcome(selected: [], retry: [], failed: true)
        }
    }

    private struct BatchResult: Sendable {
        var selected: [String] = []
        var busy: [String] = []
        var successes = 0
        var failures = 0
        var invalid = 0
        var skipped = 0
        var failureReason: ExpoFailure?
    }

    /// Errors before the Expo call propagate (the batch is retried); from the call on, nothing throws: a finalize
    /// that fails leaves leases to expire (the delivery may then be retried: at least once).
    private func handoff(_ conn: PostgresConnection, _ plan: Plan, _ selection: Selection) async throws -> BatchResult {
        var result = BatchResult()
        var phase = ContinuousClock.now
        func done(_ name: String) {
            let now = ContinuousClock.now
            Metrics.phase(name).observe((now - phase).inSeconds)
            phase = now
        }
        switch selection {
        case .after(let cursor): result.selected = try await selectCandidates(conn, plan, after: cursor)
        case .tokens(let tokens): result.selected = tokens
        }
        done("select")
        guard !result.selected.isEmpty else { return result }

        let claim = try await claim(conn, plan, tokens: result.selected)
        done("claim")
        result.busy = claim.busy
        result.skipped = claim.delivered
        guard !claim.groups.isEmpty else { return result }

        if settings.dispatchEnabled { await pace.acquire(claim.groups.count) }
        done("pace")
        let lockTokens = TokenLocks.sorted(claim.groups.map(\.expoToken))
        try await TokenLocks.lockForSession(conn, lockTokens)
        done("lock")
        let lockedAt = ContinuousClock.now
        defer {
            let held = ContinuousClock.now - lockedAt
            Metrics.lockHold.observe(held.inSeconds)
            onLockHeld?(held)
        }
        let valid = try await renewAndValidate(conn, plan, groups: claim.groups)
        done("validate")
        let sendable = claim.groups.filter { valid.contains($0.id) }
        result.skipped += claim.groups.count - sendable.count

        let tickets: [ExpoTicket]
        if sendable.isEmpty {
            tickets = []
        } else if settings.dispatchEnabled {
            let issuedAt = Date()
            tickets = await expo.send(
                sendable.map {
                    PushEnvelope.message(
                        request: plan.request, to: $0.expoToken, installationId: $0.tokenId, deliveryId: $0.id,
                        issuedAt: issuedAt)
                })
        } else {
            tickets = Array(repeating: .failed(reason: .disabled), count: sendable.count)
            Metrics.blocked.increment(by: Int64(sendable.count))
            if blockedLog.shouldFire() {
                logger.warning(
                    "expo dispatch disabled: production gate closed, notifications counted as failures",
                    ["push.messages": .int(sendable.count)])
            }
        }
        for ticket in tickets {
            switch ticket {
            case .ok: result.successes += 1
            case .deviceNotRegistered:
                result.failures += 1
                result.invalid += 1
                result.failureReason = .rejected
            case .failed(let reason):
                result.failures += 1
                result.failureReason = reason
            }
        }
        done("expo")
        Metrics.notifications("handed_off").increment(by: Int64(result.successes))
        Metrics.notifications("failed").increment(by: Int64(result.failures))

        var finalized = false
        for attempt in 1...3 where !finalized {
            do {
                try await finalize(conn, plan, groups: claim.groups, sent: sendable, tickets: tickets)
                finalized = true
            } catch {
                logger.warning(
                    "push finalize failed",
                    ["push.request": .string(plan.request.id), "attempt": .int(attempt), "error": .string("\(error)")])
                if attempt < 3 { try? await Task.sleep(for: Self.retryDelay(attempt)) }
            }
        }
        if !finalized { Metrics.batchErrors.increment() }
        done("finalize")
        try? await TokenLocks.unlockSession(conn, lockTokens)
        done("unlock")
        return result
    }

    private func selectCandidates(_ conn: PostgresConnection, _ plan: Plan, after cursor: String?) async throws
        -> [String]
    {
        let s = schema
        let rows = try await conn.query(
            """
            SELECT p.expo_token FROM \(unescaped: s.tokens) p
              JOIN \(unescaped: s.claims) c ON c.expo_token = p.expo_token AND c.token_id = p.id AND c.user_id = p.user_id
             WHERE p.user_id = ANY(\(plan.userIds)::text[])
               AND (\(plan.request.tokenId)::text IS NULL OR p.id = \(plan.request.tokenId))
               AND (p.prefs->'notifications_enabled') IS DISTINCT FROM 'false'::jsonb
               AND (\(plan.eventKey)::text IS NULL OR p.prefs->>\(plan.eventKey) = 'true')
               AND (\(cursor)::text IS NULL OR p.expo_token COLLATE "C" > \(cursor))
               AND NOT EXISTS (
                   SELECT 1 FROM jsonb_each_text(\(plan.dedupeJSON)) d WHERE p.prefs->'last_sent'->>d.key = d.value)
             ORDER BY p.expo_token COLLATE "C"
             LIMIT \(settings.batchSize)
            """)
        return rows.compactMap { $0.string("expo_token") }
    }

    private struct Claim {
        var groups: [Group] = []
        var busy: [String] = []
        var delivered = 0
    }

    private func claim(_ conn: PostgresConnection, _ plan: Plan, tokens unsorted: [String]) async throws -> Claim {
        let s = schema
        let tokens = TokenLocks.sorted(unsorted)
        let leaseMs = Int(settings.lease.inMilliseconds)
        try await conn.simpleQuery("BEGIN")
        do {
            try await TokenLocks.lockForTransaction(conn, tokens)
            // One statement: the tokens' expired claims are deleted (the CTE runs to completion; the main query still
            // sees them in its snapshot, so it filters on the lease), the candidate rows are locked, and each comes
            // with its live leases as `[[slot, key], …]`.
            let rows = try await conn.query(
                """
                WITH expired AS (
                    DELETE FROM \(unescaped: s.deliveries) WHERE expo_token = ANY(\(tokens)::text[]) AND lease_until <= now())
                SELECT p.id, p.user_id, p.expo_token, p.prefs->'last_sent' AS last_sent,
                       (SELECT jsonb_agg(jsonb_build_array(d.dedupe_slot, d.dedupe_key)) FROM \(unescaped: s.deliveries) d
                         WHERE d.expo_token = p.expo_token AND d.token_id = p.id AND d.lease_until > now()) AS live
                  FROM \(unescaped: s.tokens) p
                  JOIN \(unescaped: s.claims) c ON c.expo_token = p.expo_token AND c.token_id = p.id AND c.user_id = p.user_id
                 WHERE p.expo_token = ANY(\(tokens)::text[])
                   AND p.user_id = ANY(\(plan.userIds)::text[])
                   AND (\(plan.request.tokenId)::text IS NULL OR p.id = \(plan.request.tokenId))
                   AND (p.prefs->'notifications_enabled') IS DISTINCT FROM 'false'::jsonb
                   AND (\(plan.eventKey)::text IS NULL OR p.prefs->>\(plan.eventKey) = 'true')
                   FOR UPDATE OF c, p
                """)
            var claim = Claim()
            var columns: [[String]] = Array(repeating: [], count: 7)
            for row in rows {
                guard let id = row.string("id"), let userId = row.string("user_id"),
                    let token = row.string("expo_token")
                else { continue }
                let lastSent = PushStore.object(row.string("last_sent"))
                if plan.dedupe.contains(where: { lastSent[$0.slot] == .string($0.key) }) {
                    claim.delivered += 1
                    continue
                }
                let live = Self.leases(row.string("live"))
                if plan.dedupe.contains(where: { live.contains([$0.slot, $0.key]) }) {
                    claim.busy.append(token)
                    continue
                }
                let group = Group(
                    id: "delivery_" + Digest.randomHex(bytes: 16), tokenId: id, userId: userId, expoToken: token)
                claim.groups.append(group)
                for item in plan.dedupe {
                    for (i, value) in [
                        "delivery_" + Digest.randomHex(bytes: 16), group.id, id, userId, token, item.slot, item.key,
                    ].enumerated() {
                        columns[i].append(value)
                    }
                }
            }
            if !claim.groups.isEmpty {
                try await conn.execute(
                    """
                    INSERT INTO \(unescaped: s.deliveries)
                        (claim_id, delivery_group, token_id, user_id, expo_token, dedupe_slot, dedupe_key, lease_until)
                    SELECT u.claim_id, u.grp, u.token_id, u.user_id, u.expo_token, u.slot, u.key,
                           now() + (\(leaseMs)::double precision * interval '1 millisecond')
                      FROM unnest(\(columns[0])::text[], \(columns[1])::text[], \(columns[2])::text[], \(columns[3])::text[],
                                  \(columns[4])::text[], \(columns[5])::text[], \(columns[6])::text[])
                           AS u(claim_id, grp, token_id, user_id, expo_token, slot, key)
                    """)
            }
            try await commit(conn)
            return claim
        } catch {
            _ = try? await conn.simpleQuery("ROLLBACK")
            throw error
        }
    }

    /// `[[slot, key], …]` as a set of pairs.
    static func leases(_ text: String?) -> Set<[String]> {
        guard let text, let pairs = try? JSONDecoder().decode([[String]].self, from: Data(text.utf8)) else { return [] }
        return Set(pairs)
    }

    /// Renews the leases from now (locks are owned) and returns the groups still valid: lease alive, row still the
    /// active claim, consent still on.
    private func renewAndValidate(_ conn: PostgresConnection, _ plan: Plan, groups: [Group]) async throws -> Set<String>
    {
        let s = schema
        let leaseMs = Int(settings.lease.inMilliseconds)
        let rows = try await conn.query(
            """
            UPDATE \(unescaped: s.deliveries) d
               SET lease_until = now() + (\(leaseMs)::double precision * interval '1 millisecond')
             WHERE d.delivery_group = ANY(\(groups.map(\.id))::text[]) AND d.lease_until > now()
               AND EXISTS (
                   SELECT 1 FROM \(unescaped: s.tokens) p
                     JOIN \(unescaped: s.claims) c ON c.expo_token = p.expo_token AND c.token_id = p.id AND c.user_id = p.user_id
                    WHERE p.id = ANY(\(groups.map(\.tokenId))::text[])
                      AND p.id = d.token_id AND p.user_id = d.user_id AND p.expo_token = d.expo_token
                      AND (p.prefs->'notifications_enabled') IS DISTINCT FROM 'false'::jsonb
                      AND (\(plan.eventKey)::text IS NULL OR p.prefs->>\(plan.eventKey) = 'true'))
            RETURNING d.delivery_group
            """)
        return Set(rows.compactMap { $0.string("delivery_group") })
    }

    private func finalize(
        _ conn: PostgresConnection, _ plan: Plan, groups: [Group], sent: [Group], tickets: [ExpoTicket]
    ) async throws {
        let s = schema
        try await conn.simpleQuery("BEGIN")
        do {
            // Already held at session level by this connection: re-entrant, immediate.
            try await TokenLocks.lockForTransaction(conn, TokenLocks.sorted(groups.map(\.expoToken)))
            var okGroups: [Group] = []
            var ticketOf: [String: String] = [:]
            var dead: [Group] = []
            for (group, ticket) in zip(sent, tickets) {
                switch ticket {
                case .ok(let id):
                    okGroups.append(group)
                    if let id, !id.isEmpty { ticketOf[group.id] = id }
                case .deviceNotRegistered: dead.append(group)
                case .failed: break
                }
            }
            // Only groups whose lease is still alive on the active claim count: `last_sent` for accepted messages …
            var succeeded: [String] = []
            if !okGroups.isEmpty {
                succeeded = try await conn.query(
                    """
                    UPDATE \(unescaped: s.tokens) p
                       SET prefs = (CASE WHEN jsonb_typeof(p.prefs) = 'object' THEN p.prefs ELSE '{}'::jsonb END)
                           || jsonb_build_object('last_sent',
                                  (CASE WHEN jsonb_typeof(p.prefs->'last_sent') = 'object' THEN p.prefs->'last_sent' ELSE '{}'::jsonb END)
                                  || \(plan.dedupeJSON))
                      FROM \(unescaped: s.deliveries) d, \(unescaped: s.claims) c
                     WHERE p.id = ANY(\(okGroups.map(\.tokenId))::text[])
                       AND d.delivery_group = ANY(\(okGroups.map(\.id))::text[]) AND d.lease_until > now()
                       AND d.token_id = p.id AND d.user_id = p.user_id AND d.expo_token = p.expo_token
                       AND c.expo_token = p.expo_token AND c.token_id = p.id AND c.user_id = p.user_id
                    RETURNING p.id
                    """
                ).compactMap { $0.string("id") }
            }
            // … and `DeviceNotRegistered` prunes the installation (rare: its own statements).
            if !dead.isEmpty {
                let liveDead = Set(
                    try await conn.query(
                        """
                        SELECT p.id FROM \(unescaped: s.deliveries) d
                          JOIN \(unescaped: s.tokens) p ON p.id = d.token_id AND p.user_id = d.user_id AND p.expo_token = d.expo_token
                          JOIN \(unescaped: s.claims) c ON c.expo_token = p.expo_token AND c.token_id = p.id AND c.user_id = p.user_id
                         WHERE d.delivery_group = ANY(\(dead.map(\.id))::text[]) AND p.id = ANY(\(dead.map(\.tokenId))::text[])
                           AND d.lease_until > now()
                           FOR UPDATE OF c, p
                        """
                    ).compactMap { $0.string("id") })
                let pruned = dead.filter { liveDead.contains($0.tokenId) }
                if !pruned.isEmpty {
                    try await conn.execute(
                        "DELETE FROM \(unescaped: s.tokens) WHERE id = ANY(\(pruned.map(\.tokenId))::text[])")
                    try await conn.execute(
                        """
                        UPDATE \(unescaped: s.claims) SET token_id = NULL, user_id = NULL, claimed_at = now()
                         WHERE expo_token = ANY(\(pruned.map(\.expoToken))::text[])
                        """)
                    try await conn.execute(
                        "DELETE FROM \(unescaped: s.deliveries) WHERE expo_token = ANY(\(pruned.map(\.expoToken))::text[])"
                    )
                    Metrics.pruned("ticket").increment(by: Int64(pruned.count))
                }
            }
            // The batch's delivery claims go; accepted tickets wait for their receipts.
            let accepted = Set(succeeded)
            let receipts = okGroups.compactMap { group in
                accepted.contains(group.tokenId) ? ticketOf[group.id].map { ($0, group.tokenId) } : nil
            }
            let delayMs = Int(settings.receiptDelay.inMilliseconds)
            try await conn.execute(
                """
                WITH gone AS (DELETE FROM \(unescaped: s.deliveries) WHERE delivery_group = ANY(\(groups.map(\.id))::text[]))
                INSERT INTO \(unescaped: s.receipts) (batch_id, ticket_ids, token_ids, check_after)
                SELECT \("receipts_" + Digest.randomHex(bytes: 16)), \(receipts.map(\.0))::text[], \(receipts.map(\.1))::text[],
                       now() + (\(delayMs)::double precision * interval '1 millisecond')
                 WHERE \(receipts.count)::int > 0
                """)
            try await commit(conn)
        } catch {
            _ = try? await conn.simpleQuery("ROLLBACK")
            throw error
        }
    }

    private func commit(_ conn: PostgresConnection) async throws {
        try await conn.simpleQuery("COMMIT")
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

extension DeliverySummary {
    /// The events of this request (`mapvest.push.handed_off` / `mapvest.push.failed`): counts per event kind, no
    /// tokens, ids, titles or bodies. Nil when there is nothing to report of that kind.
    public var events: (handedOff: PushHandedOffEvent?, failed: PushFailedEvent?) {
        (
            successes > 0 ? PushHandedOffEvent(eventKind: eventKind, eventKey: eventKey, count: successes) : nil,
            failures > 0
                ? PushFailedEvent(
                    eventKind: eventKind, eventKey: eventKey, count: failures, invalidTokens: invalidTokens,
                    reason: (failureReason ?? .unavailable).rawValue) : nil
        )
    }
}
