import Contracts
import Foundation

/// A request for `users` with one dedupe item.
func pushRequest(
    users: [String], eventKey: PushEventKey? = .identifyDone, tokenId: String? = nil,
    dedupeKey: String = UUID().uuidString,
    title: String = "Found it", body: String = "$SBUX — Starbucks",
    data: [String: JSONValue] = ["kind": .string("identify_done")],
    target: PushTarget = PushTarget(type: "company", fields: ["ticker": .string("SBUX")]), ttl: Int? = nil
) -> PushRequest {
    PushRequest(
        id: UUID().uuidString.lowercased(), userIds: users, tokenId: tokenId, eventKey: eventKey, title: title,
        body: body,
        data: data, target: target, dedupe: [PushDedupe(slot: eventKey?.rawValue ?? "test", key: dedupeKey)],
        ttlSeconds: ttl)
}
