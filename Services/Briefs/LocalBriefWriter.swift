import Contracts
import Exa
import Finance
import Foundation
import OpenRouter
import Places
import Runtime

/// Writes the Local Economy Brief (docs/COMPATIBILITY.md#local-brief): nearby brands within 800 m from the places
/// cascade (the tile cache Nearby shares), an Exa fan-out only with a key and a place name (5 buckets, 2 hits each,
/// capped at 4 s: each search's timeout), then one OpenRouter JSON call on the local-brief chain. Nil when the model
/// gave no usable answer.
struct LocalBriefWriter: Sendable {
    static let radius = 800
    static let maxBrands = 20
    static let exaCap: Duration = .seconds(4)
    static let snippetLength = 260
    static let modelTimeout: Duration = .seconds(25)
    static let buckets = [
        "overview": "local economy overview", "employers": "largest employers", "employment": "employment and jobs",
        "policy": "city council economic development policy", "regulation": "business regulation zoning permits",
    ]

    let places: NearbyPlaces
    let exa: ExaClient
    let openRouter: OpenRouterClient

    struct Written: Sendable {
        let paragraphs: [String]
        let nearbyCount: Int
    }

    func write(lat: Double, lng: Double, place: LocalBriefPlace, deadline: ContinuousClock.Instant) async -> Written? {
        async let brands = nearbyBrands(lat: lat, lng: lng, deadline: deadline)
        async let sources = research(place)
        let (nearby, found) = await (brands, sources)
        let user = Self.prompt(place: place, brands: nearby, sources: found)
        let outcome = await openRouter.chatJSON(
            decoding: Output.self, models: OpenRouterModels.localBrief, system: Self.systemPrompt, user: .text(user),
            temperature: 0.4, timeoutPerModel: Self.modelTimeout, deadline: deadline, feature: "local_brief",
            accept: { Self.paragraphs($0.paragraphs).count >= 3 })
        guard let answer = outcome.result?.value else { return nil }
        return Written(paragraphs: Self.paragraphs(answer.paragraphs), nearbyCount: nearby.count)
    }

    private struct Output: Decodable, Sendable {
        let paragraphs: [String]
    }

    /// Non-empty paragraphs, markdown bold stripped, at most four.
    static func paragraphs(_ raw: [String]) -> [String] {
        Array(raw.map(DailyBriefWriter.strip).filter { !$0.isEmpty }.prefix(4))
    }

    /// A nearby business: its name, its type, and its listing when the brand seed knows it.
    struct Brand: Sendable {
        let name: String
        let kind: String
        let ticker: String?
        var line: String { "- \(name) (\(kind))" + (ticker.map { " $\($0)" } ?? "") }
    }

    /// Up to 20 ranked businesses within 800 m; none when the cascade failed.
    func nearbyBrands(lat: Double, lng: Double, deadline: ContinuousClock.Instant) async -> [Brand] {
        let ranked = await places.ranked(
            lat: lat, lng: lng, radius: Self.radius, limit: Self.maxBrands, deadline: deadline)
        return (ranked ?? []).map {
            Brand(name: $0.place.joinName, kind: $0.place.types.first ?? "business", ticker: $0.listing?.ticker)
        }
    }

    /// Exa snippets per bucket, only with a key and a city or neighbourhood; whatever arrived within 4 s.
    func research(_ place: LocalBriefPlace) async -> [String] {
        guard exa.isConfigured, let name = place.neighborhood ?? place.city else { return [] }
        let area = [name, place.city == name ? nil : place.city, place.state].compactMap { $0 }.joined(separator: ", ")
        let exa = self.exa
        // Each search's own timeout is the cap and they run in parallel, so the fan-out ends within it.
        let byBucket = await withTaskGroup(of: (String, [String]).self) { group in
            for (bucket, topic) in Self.buckets {
                group.addTask {
                    let hits = await exa.search(
                        query: "\(area) \(topic)", numResults: 2, snippetLength: Self.snippetLength,
                        timeout: Self.exaCap
                    ).hits.prefix(2)
                    return (bucket, hits.map { "- [\(bucket)] \($0.title): \($0.snippet ?? "") (\($0.url))" })
                }
            }
            var out: [String: [String]] = [:]
            for await (bucket, lines) in group { out[bucket] = lines }
            return out
        }
        return Self.buckets.keys.sorted().flatMap { byBucket[$0] ?? [] }
    }

    static func prompt(place: LocalBriefPlace, brands: [Brand], sources: [String]) -> String {
        let where_ = [place.neighborhood, place.city, place.state, place.zip].compactMap { $0 }.joined(separator: ", ")
        return "Place: \(where_.isEmpty ? "unknown (describe the surroundings from the businesses)" : where_)\n\n"
            + "Businesses within 800 m:\n\(brands.isEmpty ? "(none found)" : brands.map(\.line).joined(separator: "\n"))\n\n"
            + "Sources:\n\(sources.isEmpty ? "(none)" : sources.joined(separator: "\n"))\n\nWrite the brief."
    }

    static let systemPrompt = """
        You write a short Local Economy Brief for an investor standing in a neighbourhood. Answer with JSON only: \
        {"paragraphs": [string, …]} with three or four plain-text paragraphs, no markdown. Paragraph 1: the \
        neighbourhood's economic character, naming the neighbourhood first and the nearby public brands as $SYM. \
        Paragraph 2: employment facts, only those present in the sources; say plainly when there are none. \
        Paragraph 3: municipal policy, then four labelled lines: "Tailwinds:", "Headwinds:", "Opportunities:", \
        "Challenges:". Optional paragraph 4: one sentence. Invent nothing beyond the businesses and sources given.
        """
}

extension LocalBriefWriter {
    /// The three canned paragraphs of a brief that could not be written (never cached).
    static func outage(place: LocalBriefPlace) -> [String] {
        let name = place.label ?? "this area"
        return [
            "The Local Economy Brief for \(name) is unavailable right now.",
            "Nearby businesses and their tickers are still on the map; tap any place to see its listing and rating.",
            "The brief will be written again on your next visit.",
        ]
    }
}
