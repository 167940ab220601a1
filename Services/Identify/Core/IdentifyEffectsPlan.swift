import Contracts
import Foundation
import Runtime

/// What an identify leaves behind (docs/COMPATIBILITY.md#identify-processing), computed with the answer and free of
/// I/O: the journal row for the top investable, the `identify_done` push request and the completion event.
/// `IdentifyEffects` (in the binary) applies them after the reply or hands them off.
public enum IdentifyEffectsPlan {
    /// The effects of `response`: for a signed-in caller with an investable, the top find and `identify_done`; for
    /// everyone the completion event, keyed by the user, else the device, else `anonymous`.
    public static func compute(
        _ command: IdentifyPhotoCommand, response: IdentifyResponse, path: IdentifyPath, latencyMs: Int,
        awardKey: String, now: Date = Date()
    ) -> IdentifyEffectsCommand {
        let top = command.userId == nil ? nil : response.investables.first
        return IdentifyEffectsCommand(
            userId: command.userId,
            find: top.map { findInput($0, location: response.identification.location) },
            push: top.flatMap { top in command.userId.map { pushRequest(userId: $0, top: top, now: now) } },
            eventKey: command.userId ?? command.deviceId ?? "anonymous",
            completed: IdentifyCompletedEvent(
                path: path.rawValue, modelUsed: response.identification.modelUsed, latencyMs: latencyMs,
                detections: response.identification.detected.count, investables: response.investables.count,
                publicInvestables: response.investables.filter(\.brand.isPublic).count,
                signedIn: command.userId != nil),
            awardKey: awardKey)
    }

    /// The journal row for the top investable: a public brand keeps its ticker, a private one its first comparable.
    public static func findInput(_ top: Investable, location: LatLng?) -> RecordFindInput {
        RecordFindInput(
            brand: top.brand.name, ticker: top.brand.isPublic ? top.brand.ticker?.symbol : nil,
            isPublic: top.brand.isPublic, comparable: top.brand.isPublic ? nil : top.comparables.first?.ticker,
            confidence: top.confidence, lat: location?.lat, lng: location?.lng, foundPrice: top.quote?.price)
    }

    /// `identify_done` (docs/COMPATIBILITY.md#push-events): "Found it", deduplicated per brand or ticker per UTC hour
    /// (`yyyyMMddHH-<ticker or brand, lower case>`).
    public static func pushRequest(userId: String, top: Investable, now: Date) -> PushRequest {
        let symbol = top.brand.isPublic ? top.brand.ticker?.symbol : nil
        let body =
            symbol.map { "$\($0) — \(top.brand.name)" }
            ?? "No public match for \(top.brand.name.isEmpty ? "your photo" : top.brand.name) — see its cousins."
        var data: [String: JSONValue] = ["kind": .string("identify_done"), "brand": .string(top.brand.name)]
        if let symbol { data["ticker"] = .string(symbol) }
        let target =
            symbol.map { PushTarget(type: "company", fields: ["ticker": .string($0)]) } ?? PushTarget(type: "camera")
        let hour = String(Timestamp.iso8601(now).prefix(13)).filter(\.isNumber)
        let dedupeKey = "\(hour)-\((symbol ?? top.brand.name).lowercased())"
        return PushRequest(
            id: UUID().uuidString.lowercased(), userIds: [userId], eventKey: .identifyDone, eventKind: "identify_done",
            title: "Found it", body: body, data: data, target: target,
            dedupe: [PushDedupe(slot: "identify_done", key: dedupeKey)])
    }
}

/// A find's identity in the journal (one row per user and identity, docs/COMPATIBILITY.md#finds): its ticker, else its
/// comparable, else its brand — trimmed and upper-cased, as the table's generated column computes it.
public enum FindIdentity {
    public static func key(_ input: RecordFindInput) -> String {
        symbol(input.ticker) ?? symbol(input.comparable)
            ?? input.brand.trimmingCharacters(in: .whitespaces).uppercased()
    }

    /// A ticker as stored: trimmed and upper-cased; nil when absent or blank.
    public static func symbol(_ raw: String?) -> String? {
        guard let trimmed = raw?.trimmingCharacters(in: .whitespaces).uppercased(), !trimmed.isEmpty else { return nil }
        return trimmed
    }
}
