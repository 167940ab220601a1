import Crypto
import FoundationEssentials
import Postgres
import PushCore
import Runtime

/// The SQL of a delivery batch (docs/COMPATIBILITY.md#push-delivery) on the dispatcher's reserved connection: select
/// the next candidates, the claim transaction, lease renewal with revalidation, and the finalize transaction. The
/// decisions are `DeliveryPlan`'s and `FinalizePlan`'s; the order and the locks are `HandoffBatch`'s. Every transaction
/// takes the tokens' advisory keys (`TokenLocks`, sorted) before any row lock.
struct DeliveryClaims: Sendable {
    let schema: PushSchema
    /// Delivery lease, counted from the statement's `now()`.
    let lease: Duration
    /// When a batch's receipts are first polled.
    let receiptDelay: Duration
    let batchSize: Int

    /// The next opted-in active claims of the recipients in byte order after `cursor`, not yet delivered
    /// (`last_sent`), at most `batchSize`.
    func selectCandidates(_ conn: PostgresConnection, _ plan: DeliveryPlan, after cursor: String?) async throws
        -> [String]
    {
        let s = schema
        let rows = try await conn.query(
            """
            SELECT p.expo_token FROM \(unescaped: s.tokens) p
              JOIN \(unescaped: s.claims) c ON c.expo_token = p.expo_token AND c.token_id = p.id AND c.user_id = p.user_id
             WHERE p.user_id = ANY(\(plan.userIds)::text[])
               AND (\(plan.tokenId)::text IS NULL OR p.id = \(plan.tokenId))
               AND (p.prefs->'notifications_enabled') IS DISTINCT FROM 'false'::jsonb
               AND (\(plan.eventKey)::text IS NULL OR p.prefs->>\(plan.eventKey) = 'true')
               AND (\(cursor)::text IS NULL OR p.expo_token COLLATE "C" > \(cursor))
               AND NOT EXISTS (
                   SELECT 1 FROM jsonb_each_text(\(plan.lastSentJSON)) d WHERE p.prefs->'last_sent'->>d.key = d.value)
             ORDER BY p.expo_token COLLATE "C"
             LIMIT \(batchSize)
            """)
        return rows.compactMap { $0.string("expo_token") }
    }

    /// One transaction: the tokens' transaction advisory keys, their expired claims deleted, the candidate rows
    /// locked (`FOR UPDATE OF c, p`), `plan.claim` deciding each, and its delivery claims inserted, leased for
    /// `lease`. `tokens` must come from `TokenLocks.sorted`.
    func claim(_ conn: PostgresConnection, _ plan: DeliveryPlan, tokens: [String]) async throws -> ClaimDecision {
        let s = schema
        let leaseMs = Int(lease.inMilliseconds)
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
                   AND (\(plan.tokenId)::text IS NULL OR p.id = \(plan.tokenId))
                   AND (p.prefs->'notifications_enabled') IS DISTINCT FROM 'false'::jsonb
                   AND (\(plan.eventKey)::text IS NULL OR p.prefs->>\(plan.eventKey) = 'true')
                   FOR UPDATE OF c, p
                """)
            let candidates = rows.compactMap { row -> ClaimCandidate? in
                guard let id = row.string("id"), let userId = row.string("user_id"),
                    let token = row.string("expo_token")
                else { return nil }
                return ClaimCandidate(
                    tokenId: id, userId: userId, expoToken: token, lastSent: PushStore.object(row.string("last_sent")),
                    liveLeases: Self.leases(row.string("live")))
            }
            let decision = plan.claim(candidates) { "delivery_" + Digest.randomHex(bytes: 16) }
            if !decision.rows.isEmpty {
                let rows = decision.rows
                try await conn.execute(
                    """
                    INSERT INTO \(unescaped: s.deliveries)
                        (claim_id, delivery_group, token_id, user_id, expo_token, dedupe_slot, dedupe_key, lease_until)
                    SELECT u.claim_id, u.grp, u.token_id, u.user_id, u.expo_token, u.slot, u.key,
                           now() + (\(leaseMs)::double precision * interval '1 millisecond')
                      FROM unnest(\(rows.map(\.claimId))::text[], \(rows.map(\.group.id))::text[],
                                  \(rows.map(\.group.tokenId))::text[], \(rows.map(\.group.userId))::text[],
                                  \(rows.map(\.group.expoToken))::text[], \(rows.map(\.slot))::text[],
                                  \(rows.map(\.key))::text[])
                           AS u(claim_id, grp, token_id, user_id, expo_token, slot, key)
                    """)
            }
            try await conn.simpleQuery("COMMIT")
            return decision
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

    /// Renews the leases from now (the session locks are held) and returns the groups still valid: lease alive, row
    /// still the active claim, consent still on.
    func renewAndValidate(_ conn: PostgresConnection, _ plan: DeliveryPlan, groups: [DeliveryGroup]) async throws
        -> Set<String>
    {
        let s = schema
        let leaseMs = Int(lease.inMilliseconds)
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

    /// One transaction, under the session locks the caller still holds: `last_sent` merged for accepted groups whose
    /// lease is alive on the active claim, such dead groups pruned, every group's claims deleted and the accepted
    /// tickets stored for receipts.
    func finalize(_ conn: PostgresConnection, _ plan: DeliveryPlan, _ work: FinalizePlan) async throws {
        let s = schema
        try await conn.simpleQuery("BEGIN")
        do {
            // Already held at session level by this connection: re-entrant, immediate.
            try await TokenLocks.lockForTransaction(conn, TokenLocks.sorted(work.groups.map(\.expoToken)))
            let accepted = work.accepted
            var merged: [String] = []
            if !accepted.isEmpty {
                merged = try await conn.query(
                    """
                    UPDATE \(unescaped: s.tokens) p
                       SET prefs = (CASE WHEN jsonb_typeof(p.prefs) = 'object' THEN p.prefs ELSE '{}'::jsonb END)
                           || jsonb_build_object('last_sent',
                                  (CASE WHEN jsonb_typeof(p.prefs->'last_sent') = 'object' THEN p.prefs->'last_sent' ELSE '{}'::jsonb END)
                                  || \(plan.lastSentJSON))
                      FROM \(unescaped: s.deliveries) d, \(unescaped: s.claims) c
                     WHERE p.id = ANY(\(accepted.map(\.tokenId))::text[])
                       AND d.delivery_group = ANY(\(accepted.map(\.id))::text[]) AND d.lease_until > now()
                       AND d.token_id = p.id AND d.user_id = p.user_id AND d.expo_token = p.expo_token
                       AND c.expo_token = p.expo_token AND c.token_id = p.id AND c.user_id = p.user_id
                    RETURNING p.id
                    """
                ).compactMap { $0.string("id") }
            }
            // `DeviceNotRegistered` prunes the installation (rare: its own statements).
            let dead = work.deviceNotRegistered
            if !dead.isEmpty {
                let live = Set(
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
                let pruned = work.pruned(live: live)
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
            let receipts = work.receipts(merged: Set(merged))
            let delayMs = Int(receiptDelay.inMilliseconds)
            try await conn.execute(
                """
                WITH gone AS (DELETE FROM \(unescaped: s.deliveries) WHERE delivery_group = ANY(\(work.groups.map(\.id))::text[]))
                INSERT INTO \(unescaped: s.receipts) (batch_id, ticket_ids, token_ids, check_after)
                SELECT \("receipts_" + Digest.randomHex(bytes: 16)), \(receipts.map(\.ticketId))::text[],
                       \(receipts.map(\.tokenId))::text[],
                       now() + (\(delayMs)::double precision * interval '1 millisecond')
                 WHERE \(receipts.count)::int > 0
                """)
            try await conn.simpleQuery("COMMIT")
        } catch {
            _ = try? await conn.simpleQuery("ROLLBACK")
            throw error
        }
    }
}

extension DeliveryPlan {
    /// `{slot: key}` as jsonb.
    var lastSentJSON: PostgresJSON { (try? PostgresJSON(encoding: lastSentPatch)) ?? PostgresJSON("{}") }
}
