import Contracts
import ExpoPush

/// What one notification request fans out to, as every batch uses it: the recipients, the `tokenId` target, the
/// event key whose opt-in a token needs, and the dedupe items its delivery claims and `last_sent` carry. A pure
/// value; the SQL in `DeliveryClaims` filters on the same fields.
struct DeliveryPlan: Sendable {
    let request: PushRequest
    /// The distinct non-empty recipients.
    let userIds: [String]
    /// Only this installation when set.
    var tokenId: String? { request.tokenId }
    /// The opt-in (`prefs[eventKey] = true`) a token needs; nil: the product switch alone.
    let eventKey: String?
    let eventKind: String
    /// The first item of each non-empty slot, or `{mapvest_request: <request id>}` when there is none: a request
    /// without dedupe still needs a claim row (its lease) and protection against redelivery.
    let dedupe: [PushDedupe]
    /// `{slot: key}`, merged into `last_sent` on success.
    let lastSentPatch: [String: String]

    /// The slot of a request that carries no dedupe items.
    static let requestSlot = "mapvest_request"

    init(_ request: PushRequest) {
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
    enum Verdict: Sendable, Equatable {
        /// A dedupe item equals `last_sent[slot]`: this installation already had the delivery.
        case delivered
        /// A dedupe item is under a live lease (another handoff is in flight): try again later.
        case busy
        /// Claim it: one delivery claim per dedupe item under a new group.
        case claim
    }

    /// `lastSent` is the row's `prefs.last_sent`; `liveLeases` its live delivery claims as `[slot, key]` pairs.
    func verdict(lastSent: [String: JSONValue], liveLeases: Set<[String]>) -> Verdict {
        if dedupe.contains(where: { lastSent[$0.slot] == .string($0.key) }) { return .delivered }
        if dedupe.contains(where: { liveLeases.contains([$0.slot, $0.key]) }) { return .busy }
        return .claim
    }

    /// The decisions of one claim transaction over its locked candidates (in their order). `newId` makes
    /// `delivery_<32 hex>` ids (a group's id, and one per claim row).
    func claim(_ candidates: [ClaimCandidate], newId: () -> String) -> ClaimDecision {
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
struct DeliveryGroup: Sendable, Equatable {
    let id: String
    let tokenId: String
    let userId: String
    let expoToken: String
}

/// A row of the claim transaction, locked (`FOR UPDATE OF c, p`): an opted-in active claim of a recipient.
struct ClaimCandidate: Sendable, Equatable {
    let tokenId: String
    let userId: String
    let expoToken: String
    /// `prefs.last_sent` (`{}` when absent or not an object).
    let lastSent: [String: JSONValue]
    /// The token's live delivery claims as `[slot, key]` pairs.
    let liveLeases: Set<[String]>
}

/// One delivery claim to insert, leased from the claim transaction's `now()`.
struct DeliveryClaimRow: Sendable, Equatable {
    let claimId: String
    let group: DeliveryGroup
    let slot: String
    let key: String
}

/// What a claim transaction decided.
struct ClaimDecision: Sendable, Equatable {
    var groups: [DeliveryGroup] = []
    var rows: [DeliveryClaimRow] = []
    /// Tokens under another live lease.
    var busy: [String] = []
    /// Candidates that already had this delivery.
    var delivered = 0
}

/// Which tokens a batch takes.
enum BatchSelection: Sendable, Equatable {
    /// The next batch in byte order after this token.
    case after(String?)
    /// These tokens again (sorted, ≤ batch size).
    case tokens([String])
}

/// The counts of one batch. Never tokens or ids beyond `selected` and `busy`, which stay in the process.
struct BatchTally: Sendable, Equatable {
    var selected: [String] = []
    /// Tokens under another live lease: retried later.
    var busy: [String] = []
    var successes = 0
    var failures = 0
    /// Of `failures`: `DeviceNotRegistered` tickets.
    var invalid = 0
    /// Already delivered, or lost their claim, lease or consent before the handoff.
    var skipped = 0
    var failureReason: ExpoFailure?

    /// Counts Expo's tickets: accepted → success; `DeviceNotRegistered` → an invalid-token failure (`rejected`);
    /// anything else → a failure with its reason. The reason of the last failure wins.
    mutating func record(_ tickets: [ExpoTicket]) {
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
struct BatchOutcome: Sendable, Equatable {
    var selected: [String] = []
    /// Tokens to try again later: under a live lease, or the batch failed before its handoff.
    var retry: [String] = []
    var failed = false

    init(_ tally: BatchTally) {
        selected = tally.selected
        retry = tally.busy
    }

    /// A batch that hit an error before its handoff: given tokens are all retried; a page selected nothing.
    init(failed selection: BatchSelection) {
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
struct FinalizePlan: Sendable, Equatable {
    /// All the batch's groups: their delivery claims are deleted.
    let groups: [DeliveryGroup]
    let accepted: [DeliveryGroup]
    /// Group id → Expo ticket id (accepted tickets that came with an id).
    let ticketIds: [String: String]
    let deviceNotRegistered: [DeliveryGroup]

    /// `tickets` are by index of `sent` (a shorter list leaves the rest without outcome).
    init(groups: [DeliveryGroup], sent: [DeliveryGroup], tickets: [ExpoTicket]) {
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
    func pruned(live: Set<String>) -> [DeliveryGroup] {
        deviceNotRegistered.filter { live.contains($0.tokenId) }
    }

    /// `(ticket id, token id)` of the accepted groups whose `last_sent` was merged (`merged` token ids) and that
    /// have a ticket id: these wait for their receipts.
    func receipts(merged: Set<String>) -> [(ticketId: String, tokenId: String)] {
        accepted.compactMap { group in
            merged.contains(group.tokenId) ? ticketIds[group.id].map { ($0, group.tokenId) } : nil
        }
    }
}
