import Contracts

/// What one notification request fans out to, as every batch uses it: the recipients, the `tokenId` target, the
/// event key whose opt-in a token needs, and the dedupe items its delivery claims and `last_sent` carry. A pure
/// value; the SQL in `DeliveryClaims` filters on the same fields.
package struct DeliveryPlan: Sendable {
    package let request: PushRequest
    /// The distinct non-empty recipients.
    package let userIds: [String]
    /// Only this installation when set.
    package var tokenId: String? { request.tokenId }
    /// The opt-in (`prefs[eventKey] = true`) a token needs; nil: the product switch alone.
    package let eventKey: String?
    package let eventKind: String
    /// The first item of each non-empty slot, or `{mapvest_request: <request id>}` when there is none: a request
    /// without dedupe still needs a claim row (its lease) and protection against redelivery.
    package let dedupe: [PushDedupe]
    /// `{slot: key}`, merged into `last_sent` on success.
    package let lastSentPatch: [String: String]

    /// The slot of a request that carries no dedupe items.
    package static let requestSlot = "mapvest_request"

    package init(_ request: PushRequest) {
        var dedupe: [PushDedupe] = []
        var seenSlots = Set<String>()
        for item in request.dedupe where !item.slot.isEmpty && seenSlots.insert(item.slot).inserted {
            dedupe.append(item)
        }
        if dedupe.isEmpty { dedupe = [PushDedupe(slot: Self.requestSlot, key: request.id)] }
        var patch: [String: String] = [:]
        for item in dedupe { patch[item.slot] = item.key }
        self.request = request
        self.userIds = Array(Set(request.userIds.filter { !$0.isEmpty }))
        self.eventKey = request.eventKey?.rawValue
        self.eventKind = PushEnvelope.eventKind(request)
        self.dedupe = dedupe
        self.lastSentPatch = patch
    }

    /// What the claim transaction does with one locked candidate.
    package enum Verdict: Sendable, Equatable {
        /// A dedupe item equals `last_sent[slot]`: this installation already had the delivery.
        case delivered
        /// A dedupe item is under a live lease (another handoff is in flight): try again later.
        case busy
        /// Claim it: one delivery claim per dedupe item under a new group.
        case claim
    }

    /// `lastSent` is the row's `prefs.last_sent`; `liveLeases` its live delivery claims as `[slot, key]` pairs.
    package func verdict(lastSent: [String: JSONValue], liveLeases: Set<[String]>) -> Verdict {
        if dedupe.contains(where: { lastSent[$0.slot] == .string($0.key) }) { return .delivered }
        if dedupe.contains(where: { liveLeases.contains([$0.slot, $0.key]) }) { return .busy }
        return .claim
    }

    /// The decisions of one claim transaction over its locked candidates (in their order). `newId` makes
    /// `delivery_<32 hex>` ids (a group's id, and one per claim row).
    package func claim(_ candidates: [ClaimCandidate], newId: () -> String) -> ClaimDecision {
        var decision = ClaimDecision()
        for candidate in candidates {
            switch verdict(lastSent: candidate.lastSent, liveLeases: candidate.liveLeases) {
            case .delivered: decision.delivered += 1
            case .busy: decision.busy.append(candidate.expoToken)
            case .claim:
                let group = DeliveryGroup(
                    id: newId(), tokenId: candidate.tokenId, userId: candidate.userId, expoToken: candidate.expoToken)
                decision.groups.append(group)
                for item in dedupe {
                    decision.rows.append(
                        DeliveryClaimRow(claimId: newId(), group: group, slot: item.slot, key: item.key))
                }
            }
        }
        return decision
    }
}

/// One installation claimed for one batch: its delivery claims share `id` (`delivery_group`).
package struct DeliveryGroup: Sendable, Equatable {
    package let id: String
    package let tokenId: String
    package let userId: String
    package let expoToken: String
}

/// A row of the claim transaction, locked (`FOR UPDATE OF c, p`): an opted-in active claim of a recipient.
package struct ClaimCandidate: Sendable, Equatable {
    package let tokenId: String
    package let userId: String
    package let expoToken: String
    /// `prefs.last_sent` (`{}` when absent or not an object).
    package let lastSent: [String: JSONValue]
    /// The token's live delivery claims as `[slot, key]` pairs.
    package let liveLeases: Set<[String]>

    package init(
        tokenId: String, userId: String, expoToken: String, lastSent: [String: JSONValue], liveLeases: Set<[String]>
    ) {
        self.tokenId = tokenId
        self.userId = userId
        self.expoToken = expoToken
        self.lastSent = lastSent
        self.liveLeases = liveLeases
    }
}

/// One delivery claim to insert, leased from the claim transaction's `now()`.
package struct DeliveryClaimRow: Sendable, Equatable {
    package let claimId: String
    package let group: DeliveryGroup
    package let slot: String
    package let key: String
}

/// What a claim transaction decided.
package struct ClaimDecision: Sendable, Equatable {
    package var groups: [DeliveryGroup] = []
    package var rows: [DeliveryClaimRow] = []
    /// Tokens under another live lease.
    package var busy: [String] = []
    /// Candidates that already had this delivery.
    package var delivered = 0
}

/// Which tokens a batch takes.
package enum BatchSelection: Sendable, Equatable {
    /// The next batch in byte order after this token.
    case after(String?)
    /// These tokens again (sorted, ≤ batch size).
    case tokens([String])
}

/// The counts of one batch. Never tokens or ids beyond `selected` and `busy`, which stay in the process.
package struct BatchTally: Sendable, Equatable {
    package var selected: [String] = []
    /// Tokens under another live lease: retried later.
    package var busy: [String] = []
    package var successes = 0
    package var failures = 0
    /// Of `failures`: `DeviceNotRegistered` tickets.
    package var invalid = 0
    /// Already delivered, or lost their claim, lease or consent before the handoff.
    package var skipped = 0
    package var failureReason: ExpoFailure?

    /// Counts Expo's tickets: accepted → success; `DeviceNotRegistered` → an invalid-token failure (`rejected`);
    /// anything else → a failure with its reason. The reason of the last failure wins.
    package mutating func record(_ tickets: [ExpoTicket]) {
        for ticket in tickets {
            switch ticket {
            case .ok: successes += 1
            case .deviceNotRegistered:
                failures += 1
                invalid += 1
                failureReason = .rejected
            case .failed(let reason):
                failures += 1
                failureReason = reason
            }
        }
    }
}

/// How a batch ended, for the request's retry decisions.
package struct BatchOutcome: Sendable, Equatable {
    package var selected: [String] = []
    /// Tokens to try again later: under a live lease, or the batch failed before its handoff.
    package var retry: [String] = []
    package var failed = false

    package init(_ tally: BatchTally) {
        selected = tally.selected
        retry = tally.busy
    }

    /// A batch that hit an error before its handoff: given tokens are all retried; a page selected nothing.
    package init(failed selection: BatchSelection) {
        failed = true
        if case .tokens(let tokens) = selection {
            selected = tokens
            retry = tokens
        }
    }
}

/// The finalize transaction's work, from the tickets of the messages sent: only groups whose lease is still alive
/// on the active claim count (the SQL checks that). Accepted → `last_sent` merged and the ticket id kept for
/// receipts; `DeviceNotRegistered` → the installation pruned; other failures → nothing. Every group's claims go.
package struct FinalizePlan: Sendable, Equatable {
    /// All the batch's groups: their delivery claims are deleted.
    package let groups: [DeliveryGroup]
    package let accepted: [DeliveryGroup]
    /// Group id → Expo ticket id (accepted tickets that came with an id).
    package let ticketIds: [String: String]
    package let deviceNotRegistered: [DeliveryGroup]

    /// `tickets` are by index of `sent` (a shorter list leaves the rest without outcome).
    package init(groups: [DeliveryGroup], sent: [DeliveryGroup], tickets: [ExpoTicket]) {
        var accepted: [DeliveryGroup] = []
        var ticketIds: [String: String] = [:]
        var dead: [DeliveryGroup] = []
        for (group, ticket) in zip(sent, tickets) {
            switch ticket {
            case .ok(let id):
                accepted.append(group)
                if let id, !id.isEmpty { ticketIds[group.id] = id }
            case .deviceNotRegistered: dead.append(group)
            case .failed: break
            }
        }
        self.groups = groups
        self.accepted = accepted
        self.ticketIds = ticketIds
        self.deviceNotRegistered = dead
    }

    /// The dead groups still live on their active claim (`live` token ids): these installations are pruned.
    package func pruned(live: Set<String>) -> [DeliveryGroup] {
        deviceNotRegistered.filter { live.contains($0.tokenId) }
    }

    /// `(ticket id, token id)` of the accepted groups whose `last_sent` was merged (`merged` token ids) and that
    /// have a ticket id: these wait for their receipts.
    package func receipts(merged: Set<String>) -> [(ticketId: String, tokenId: String)] {
        accepted.compactMap { group in
            merged.contains(group.tokenId) ? ticketIds[group.id].map { ($0, group.tokenId) } : nil
        }
    }
}
