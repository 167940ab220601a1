import Contracts
import Foundation
import Runtime
import ServiceKit

/// Side effects of a signed-in identify with at least one investable (CONTRACT.md §a.3 step 5): the `identify_done`
/// push request and `recordFind` of the top investable. They never block or fail the response.
struct SignedInEffects: Sendable {
    let finds: FindsCommands
    let context: ServiceContext

    func run(userId: String, response: IdentifyResponse) async {
        guard let top = response.investables.first else { return }
        await finds.recordFromIdentify(userId: userId, Self.findInput(top, location: response.identification.location))
        guard let request = try? JSONEncoder().encode(Self.pushRequest(userId: userId, top: top, now: Date())) else { return }
        _ = await context.publisher.publish(topic: Topics.pushRequests, key: userId, value: Array(request))
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
