import ExpoPush
import Postgres
import PushCore
import Runtime

/// Background work shared by all replicas, every `interval`:
/// - **Receipts** (beyond the original): batches whose `check_after` passed are taken with `FOR UPDATE SKIP LOCKED`
///   (and pushed back 5 min, so a crashed replica's work comes back), polled ≤ 1000 ids per call, and a
///   `DeviceNotRegistered` receipt prunes its installation if it is still the active claim, claimed before the
///   handoff. Ids Expo does not know yet are asked again, at most 4 times (`ReceiptOutcomes`).
/// - **Expired leases**: delivery claims whose lease ran out (a dispatcher died) are deleted under the tokens'
///   advisory keys, so nothing is left behind even for tokens that are never dispatched again.
public final class PushMaintenance: Service {
    public let name = "push-maintenance"
    private let db: PostgresPool
    private let schema: PushSchema
    private let expo: ExpoPushClient
    private let interval: Duration
    private let pollReceipts: Bool
    private let logger: Logger
    private let stop = AsyncStream<Void>.makeStream()

    public init(
        db: PostgresPool, schema: PushSchema, expo: ExpoPushClient, interval: Duration, pollReceipts: Bool,
        logger: Logger
    ) {
        self.db = db
        self.schema = schema
        self.expo = expo
        self.interval = interval
        self.pollReceipts = pollReceipts
        self.logger = logger.with([LogKeys.component: "push-maintenance"])
    }

    public func run() async throws {
        let ticks = AsyncStream<Void> { continuation in
            let timer = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    continuation.yield()
                }
            }
            continuation.onTermination = { _ in timer.cancel() }
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [stop] in
                for await _ in stop.stream { break }
            }
            group.addTask { [self] in
                for await _ in ticks {
                    await runOnce()
                    if Task.isCancelled { break }
                }
            }
            await group.next()
            group.cancelAll()
        }
    }

    public func shutdown() async {
        stop.continuation.yield()
        stop.continuation.finish()
    }

    /// One pass: sweep expired leases, then poll due receipts.
    public func runOnce() async {
        do {
            try await sweepExpiredLeases()
        } catch {
            logger.warning("expired lease sweep failed", [LogKeys.error: .string("\(error)")])
        }
        guard pollReceipts else { return }
        do {
            try await pollDueReceipts()
        } catch {
            logger.warning("receipt polling failed", [LogKeys.error: .string("\(error)")])
        }
    }

    func sweepExpiredLeases() async throws {
        let s = schema
        let tokens = TokenLocks.sorted(
            try await db.query(
                "SELECT DISTINCT expo_token FROM \(unescaped: s.deliveries) WHERE lease_until <= now() LIMIT 100"
            ).compactMap { $0.string("expo_token") })
        guard !tokens.isEmpty else { return }
        let deleted = try await db.transaction { conn in
            try await TokenLocks.lockForTransaction(conn, tokens)
            return try await conn.execute(
                "DELETE FROM \(unescaped: s.deliveries) WHERE expo_token = ANY(\(tokens)::text[]) AND lease_until <= now()"
            )
        }
        Metrics.expiredLeases.increment(by: Int64(deleted))
    }

    func pollDueReceipts() async throws {
        let s = schema
        let due = try await db.query(
            """
            UPDATE \(unescaped: s.receipts) r
               SET check_after = now() + interval '5 minutes', attempts = r.attempts + 1
             WHERE r.batch_id IN (
                   SELECT batch_id FROM \(unescaped: s.receipts) WHERE check_after <= now()
                    ORDER BY check_after LIMIT 10 FOR UPDATE SKIP LOCKED)
            RETURNING r.batch_id, r.ticket_ids, r.token_ids, r.handed_off_at, r.attempts
            """)
        guard !due.isEmpty else { return }
        struct Batch {
            let id: String
            let tickets: [String]
            let tokenIds: [String]
            let handedOffAt: String
            let attempts: Int
        }
        let batches = due.compactMap { row -> Batch? in
            guard let id = row.string("batch_id"), let tickets = row.stringArray("ticket_ids"),
                let tokenIds = row.stringArray("token_ids"), tickets.count == tokenIds.count,
                let handedOffAt = row.string("handed_off_at")
            else { return nil }
            return Batch(
                id: id, tickets: tickets, tokenIds: tokenIds, handedOffAt: handedOffAt,
                attempts: row.int("attempts") ?? 1)
        }
        let ids = Array(batches.flatMap(\.tickets).prefix(ExpoPushClient.maxReceiptIds))
        guard let receipts = await expo.receipts(ids: ids) else { return }  // retried after the 5-minute push-back
        for batch in batches {
            let outcomes = ReceiptOutcomes(
                ticketIds: batch.tickets, tokenIds: batch.tokenIds, attempts: batch.attempts, receipts: receipts)
            for entry in outcomes.entries {
                switch entry.receipt {
                case .ok?: Metrics.receipts("ok").increment()
                case .error?: Metrics.receipts("error").increment()
                case .deviceNotRegistered?:
                    Metrics.receipts("device_not_registered").increment()
                    try await prune(tokenId: entry.tokenId, handedOffAt: batch.handedOffAt)
                case nil: break
                }
            }
            switch outcomes.disposition {
            case .delete(let expired):
                Metrics.receipts("expired").increment(by: Int64(expired))
                try await db.execute("DELETE FROM \(unescaped: s.receipts) WHERE batch_id = \(batch.id)")
            case .keep(let ticketIds, let tokenIds):
                try await db.execute(
                    """
                    UPDATE \(unescaped: s.receipts) SET ticket_ids = \(ticketIds)::text[], token_ids = \(tokenIds)::text[]
                     WHERE batch_id = \(batch.id)
                    """)
            }
        }
    }

    /// Deletes the installation and tombstones its claim, if it is still the active claim and was not claimed again
    /// after the handoff.
    func prune(tokenId: String, handedOffAt: String) async throws {
        let s = schema
        let pruned = try await db.transaction { conn -> Bool in
            guard let expoToken = try await TokenLocks.lockInstallation(conn, table: s.tokens, tokenId: tokenId) else {
                return false
            }
            let active = try await conn.query(
                """
                SELECT p.id FROM \(unescaped: s.tokens) p
                  JOIN \(unescaped: s.claims) c ON c.expo_token = p.expo_token AND c.token_id = p.id AND c.user_id = p.user_id
                 WHERE p.id = \(tokenId) AND c.claimed_at <= \(handedOffAt)::timestamptz
                   FOR UPDATE OF c, p
                """)
            guard !active.isEmpty else { return false }
            try await PushStore.unlink(conn, s, tokenId: tokenId, expoToken: expoToken)
            return true
        }
        if pruned { Metrics.pruned("receipt").increment() }
    }
}
