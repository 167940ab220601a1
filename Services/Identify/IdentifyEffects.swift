import Contracts
import Foundation
import Messaging
import Runtime
import ServiceKit

/// The side effects of an identify (CONTRACT.md §a.3 step 5), made durable: computed with the answer, applied after
/// the reply, and if that fails handed to `Topics.identifyEffects` as an `identify.effects.v1` command, which is
/// applied from there until it succeeds (its offset held meanwhile). See docs/ARCHITECTURE.md, "After-reply effects".
struct IdentifyEffects: Sendable {
    /// The consumer group of `Topics.identifyEffects`.
    static let groupId = "mapvest.identify.effects"

    let finds: FindsCommands
    let context: ServiceContext
    /// How long the first, inline attempt may take before the effects are handed off.
    var inlineAttempt: Duration = .seconds(2)
    /// How long one attempt of a handed-off effects command may take before the runner retries it.
    var handedOffAttempt: Duration = .seconds(10)

    /// What `response` leaves behind: for a signed-in caller with an investable, the top find and `identify_done`.
    static func compute(
        _ command: IdentifyPhotoCommand, response: IdentifyResponse, path: PhotoIdentifier.Path, latencyMs: Int,
        awardKey: String
    ) -> IdentifyEffectsCommand {
        let top = command.userId == nil ? nil : response.investables.first
        return IdentifyEffectsCommand(
            userId: command.userId,
            find: top.map { findInput($0, location: response.identification.location) },
            push: top.flatMap { top in command.userId.map { pushRequest(userId: $0, top: top, now: Date()) } },
            eventKey: command.userId ?? command.deviceId ?? "anonymous",
            completed: IdentifyCompletedEvent(
                path: path.rawValue, modelUsed: response.identification.modelUsed, latencyMs: latencyMs,
                detections: response.identification.detected.count, investables: response.investables.count,
                publicInvestables: response.investables.filter(\.brand.isPublic).count,
                signedIn: command.userId != nil),
            awardKey: awardKey)
    }

    /// After an identify's reply: applies the effects, or hands them off when that fails within `inlineAttempt`.
    /// Throws only when the hand-off fails too (the broker is down): the runner then retries, holding the offset.
    func applyOrHandOff(_ effects: IdentifyEffectsCommand, key: String) async throws {
        do {
            try await apply(effects, awardKey: effects.awardKey ?? key, attempt: inlineAttempt)
        } catch {
            context.logger.warning("identify effects failed; handing them off", [LogKeys.error: .string("\(error)")])
            let body = Array(try JSONEncoder().encode(effects))
            try await context.publisher.deliverCommand(
                topic: Topics.identifyEffects, key: key, name: IdentifyEffectsCommand.name, body: body,
                until: .now + inlineAttempt)
        }
    }

    /// A handed-off effects command: applied after its (unsent) reply, so the runner retries it until it succeeds.
    /// `delivery` names its awards when the command carries no award key.
    func handle(_ effects: IdentifyEffectsCommand, delivery: String) -> Reply {
        Reply(status: 204, body: []).then {
            try await apply(effects, awardKey: effects.awardKey ?? delivery, attempt: handedOffAttempt)
        }
    }

    /// Records the find (its event published before the row commits), then publishes the push request and the
    /// completion event. Each part is idempotent: the find by its identity index, the push by its dedupe key and
    /// request id, the events by their consumers. Throws when any part did not finish within `attempt`.
    func apply(_ effects: IdentifyEffectsCommand, awardKey: String, attempt: Duration) async throws {
        let deadline = ContinuousClock.now + attempt
        try await TaskDeadline.$current.withValue(deadline) {
            if let userId = effects.userId, let find = effects.find {
                try await finds.record(userId: userId, [find], awardKey: awardKey, deadline: deadline)
            }
            if let push = effects.push, let userId = effects.userId {
                try await context.publisher.deliver(
                    topic: Topics.pushRequests, key: userId, value: Array(try JSONEncoder().encode(push)),
                    until: deadline)
            }
            try await context.emit(
                type: IdentifyCompletedEvent.type, schemaVersion: IdentifyCompletedEvent.schemaVersion,
                key: effects.eventKey, data: effects.completed, deadline: deadline)
        }
    }

    /// The journal row for the top investable.
    static func findInput(_ top: Investable, location: LatLng?) -> RecordFindInput {
        RecordFindInput(
            brand: top.brand.name, ticker: top.brand.isPublic ? top.brand.ticker?.symbol : nil,
            isPublic: top.brand.isPublic, comparable: top.brand.isPublic ? nil : top.comparables.first?.ticker,
            confidence: top.confidence, lat: location?.lat, lng: location?.lng, foundPrice: top.quote?.price)
    }

    /// `identify_done` (§i.9): "Found it", deduplicated per brand or ticker per UTC hour.
    static func pushRequest(userId: String, top: Investable, now: Date) -> PushRequest {
        let symbol = top.brand.isPublic ? top.brand.ticker?.symbol : nil
        let body =
            symbol.map { "$\($0) — \(top.brand.name)" }
            ?? "No public match for \(top.brand.name.isEmpty ? "your photo" : top.brand.name) — see its cousins."
        var data: [String: JSONValue] = ["kind": .string("identify_done"), "brand": .string(top.brand.name)]
        if let symbol { data["ticker"] = .string(symbol) }
        let target = symbol.map { PushTarget(type: "company", fields: ["ticker": .string($0)]) } ?? PushTarget(type: "camera")
        let hour = String(Timestamp.iso8601(now).prefix(13)).filter(\.isNumber)
        let dedupeKey = "\(hour)-\((symbol ?? top.brand.name).lowercased())"
        return PushRequest(
            id: UUID().uuidString.lowercased(), userIds: [userId], eventKey: .identifyDone, eventKind: "identify_done",
            title: "Found it", body: body, data: data, target: target,
            dedupe: [PushDedupe(slot: "identify_done", key: dedupeKey)])
    }
}
