import Contracts
import Foundation

/// The Local Economy Brief's pure parts (docs/COMPATIBILITY.md#local-brief): the search buckets and area, the prompt,
/// the paragraph rules, the outage paragraphs, the place merge, the cache key and Nominatim's field precedence.
public enum LocalBriefRules {
    public static let radius = 800
    public static let maxBrands = 20
    public static let snippetLength = 260
    public static let buckets = [
        "overview": "local economy overview", "employers": "largest employers", "employment": "employment and jobs",
        "policy": "city council economic development policy", "regulation": "business regulation zoning permits",
    ]

    /// Non-empty paragraphs, markdown bold stripped, at most four.
    public static func paragraphs(_ raw: [String]) -> [String] {
        Array(raw.map(DailyBriefRules.strip).filter { !$0.isEmpty }.prefix(4))
    }

    /// A nearby business: its name, its type, and its listing when the brand seed knows it.
    public struct Brand: Sendable, Equatable {
        public let name: String
        public let kind: String
        public let ticker: String?
        public var line: String { "- \(name) (\(kind))" + (ticker.map { " $\($0)" } ?? "") }

        public init(name: String, kind: String, ticker: String?) {
            self.name = name
            self.kind = kind
            self.ticker = ticker
        }
    }

    /// The area the searches name (`neighbourhood, city, state`), or nil without a neighbourhood or city.
    public static func searchArea(_ place: LocalBriefPlace) -> String? {
        guard let name = place.neighborhood ?? place.city else { return nil }
        return [name, place.city == name ? nil : place.city, place.state].compactMap { $0 }.joined(separator: ", ")
    }

    /// One search hit as a source line.
    public static func sourceLine(bucket: String, title: String, snippet: String?, url: String) -> String {
        "- [\(bucket)] \(title): \(snippet ?? "") (\(url))"
    }

    public static func prompt(place: LocalBriefPlace, brands: [Brand], sources: [String]) -> String {
        let where_ = [place.neighborhood, place.city, place.state, place.zip].compactMap { $0 }.joined(separator: ", ")
        return "Place: \(where_.isEmpty ? "unknown (describe the surroundings from the businesses)" : where_)\n\n"
            + "Businesses within 800 m:\n\(brands.isEmpty ? "(none found)" : brands.map(\.line).joined(separator: "\n"))\n\n"
            + "Sources:\n\(sources.isEmpty ? "(none)" : sources.joined(separator: "\n"))\n\nWrite the brief."
    }

    /// The three canned paragraphs of a brief that could not be written (never cached).
    public static func outage(place: LocalBriefPlace) -> [String] {
        let name = place.label ?? "this area"
        return [
            "The Local Economy Brief for \(name) is unavailable right now.",
            "Nearby businesses and their tickers are still on the map; tap any place to see its listing and rating.",
            "The brief will be written again on your next visit.",
        ]
    }

    /// Whether the request's place lacks a field reverse geocoding could fill.
    public static func needsGeocoding(_ place: LocalBriefPlace) -> Bool {
        place.neighborhood == nil || place.city == nil || place.state == nil
    }

    /// The request's fields, each missing one from the geocoded place.
    public static func merge(_ given: LocalBriefPlace, _ found: LocalBriefPlace) -> LocalBriefPlace {
        LocalBriefPlace(
            neighborhood: given.neighborhood ?? found.neighborhood, city: given.city ?? found.city,
            state: given.state ?? found.state, zip: given.zip ?? found.zip)
    }

    /// `v2:<lat 3dp>,<lng 3dp>::<YYYYMMDD UTC>`.
    public static func cacheKey(lat: Double, lng: Double, now: Date) -> String {
        String(format: "v2:%.3f,%.3f::", lat, lng) + BriefsCalendar.day(now)
    }

    /// The geocoder's cache key: lat/lng at 3 decimals.
    public static func geocodeKey(lat: Double, lng: Double) -> String { String(format: "%.3f,%.3f", lat, lng) }

    private struct NominatimBody: Decodable {
        let address: [String: String]?
    }

    /// Nominatim's answer: neighborhood = neighbourhood ∥ suburb ∥ city_district ∥ borough ∥ hamlet; city = city ∥
    /// town ∥ village ∥ county; state; zip = postcode. Nil when none is present.
    public static func parseNominatim(_ body: [UInt8]) -> LocalBriefPlace? {
        guard let address = (try? JSONDecoder().decode(NominatimBody.self, from: Data(body)))?.address else {
            return nil
        }
        func first(_ keys: [String]) -> String? {
            keys.lazy.compactMap { address[$0]?.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
        }
        let place = LocalBriefPlace(
            neighborhood: first(["neighbourhood", "suburb", "city_district", "borough", "hamlet"]),
            city: first(["city", "town", "village", "county"]), state: first(["state"]), zip: first(["postcode"]))
        return place == LocalBriefPlace() ? nil : place
    }

    public static let systemPrompt = """
        You write a short Local Economy Brief for an investor standing in a neighbourhood. Answer with JSON only: \
        {"paragraphs": [string, …]} with three or four plain-text paragraphs, no markdown. Paragraph 1: the \
        neighbourhood's economic character, naming the neighbourhood first and the nearby public brands as $SYM. \
        Paragraph 2: employment facts, only those present in the sources; say plainly when there are none. \
        Paragraph 3: municipal policy, then four labelled lines: "Tailwinds:", "Headwinds:", "Opportunities:", \
        "Challenges:". Optional paragraph 4: one sentence. Invent nothing beyond the businesses and sources given.
        """
}
