import Contracts
import Foundation
import HTTPServer

/// `GET /v1/rating/:ticker`, `GET /v1/news` and `POST /v1/search/intent` input (docs/COMPATIBILITY.md#rating, #news,
/// #search-intent).
enum ResearchInput {
    /// Trimmed and upper-cased, matching `^[A-Z][A-Z0-9.]{0,5}$` (a leading `$` is not stripped on REST).
    static func ratingTicker(_ raw: String?) -> String? {
        guard let ticker = raw?.trimmingCharacters(in: .whitespacesAndNewlines).uppercased() else { return nil }
        let scalars = ticker.unicodeScalars
        guard (1...6).contains(scalars.count), let first = scalars.first, ("A"..."Z").contains(first),
            scalars.dropFirst().allSatisfy({ ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "." })
        else { return nil }
        return ticker
    }

    /// `ticker` required (trimmed, upper-cased, at most 32 characters); `limit` default 6, 1…25 (not finite → 400);
    /// `materiality` as `materiality(_:)` reads it.
    static func news(_ query: [String: String]) throws(HTTPResponse) -> NewsCommand {
        guard let ticker = query["ticker"]?.trimmingCharacters(in: .whitespacesAndNewlines).uppercased(),
            !ticker.isEmpty, ticker.count <= 32
        else { throw .error(.tickerRequired) }
        let limit = try QueryNumbers(query).integer("limit", default: 6, range: 1...25)
        return NewsCommand(ticker: ticker, limit: limit, materiality: try materiality(query))
    }

    private struct IntentBody: Decodable {
        let q: String
        let lat: Double?
        let lng: Double?
    }

    /// `{q: 1…200 characters once trimmed, lat?, lng?}`; `q` goes on whitespace-collapsed. A `lat` or `lng` outside
    /// its range is a 400 naming it; a point given half is dropped, as a missing one is.
    static func intent(_ request: HTTPRequest) throws(HTTPResponse) -> SearchIntentCommand {
        guard case .success(let body) = JSONBody.decode(IntentBody.self, from: request, error: "") else {
            throw .error(400, qRequired)
        }
        let trimmed = body.q.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...200).contains(trimmed.count) else { throw .error(400, qRequired) }
        if let lat = body.lat, !(-90...90).contains(lat) { throw .error(400, "lat must be between -90 and 90") }
        if let lng = body.lng, !(-180...180).contains(lng) { throw .error(400, "lng must be between -180 and 180") }
        let q = trimmed.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let point = LatLng.validated(lat: body.lat, lng: body.lng)
        return SearchIntentCommand(q: q, lat: point?.lat, lng: point?.lng)
    }

    static let qRequired = "q required (1-200 chars)"

    /// `materiality`: absent or empty → nil; a level name in any case; anything else is a 400 naming the field.
    static func materiality(_ query: [String: String]) throws(HTTPResponse) -> MaterialityLevel? {
        guard let text = query["materiality"], !text.isEmpty else { return nil }
        guard let level = MaterialityLevel(query: text) else {
            throw .error(400, "materiality must be one of noise, minor, material")
        }
        return level
    }
}
