import BriefsCore
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
    static let exaCap: Duration = .seconds(4)
    static let modelTimeout: Duration = .seconds(25)

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
        let user = LocalBriefRules.prompt(place: place, brands: nearby, sources: found)
        let outcome = await openRouter.chatJSON(
            decoding: Output.self, models: OpenRouterModels.localBrief, system: LocalBriefRules.systemPrompt,
            user: .text(user),
            temperature: 0.4, timeoutPerModel: Self.modelTimeout, deadline: deadline, feature: "local_brief",
            accept: { LocalBriefRules.paragraphs($0.paragraphs).count >= 3 })
        guard let answer = outcome.result?.value else { return nil }
        return Written(paragraphs: LocalBriefRules.paragraphs(answer.paragraphs), nearbyCount: nearby.count)
    }

    private struct Output: Decodable, Sendable {
        let paragraphs: [String]
    }

    /// Up to 20 ranked businesses within 800 m; none when the cascade failed.
    func nearbyBrands(lat: Double, lng: Double, deadline: ContinuousClock.Instant) async -> [LocalBriefRules.Brand] {
        let ranked = await places.ranked(
            lat: lat, lng: lng, radius: LocalBriefRules.radius, limit: LocalBriefRules.maxBrands, deadline: deadline)
        return (ranked ?? []).map {
            LocalBriefRules.Brand(
                name: $0.place.joinName, kind: $0.place.types.first ?? "business", ticker: $0.listing?.ticker)
        }
    }

    /// Exa snippets per bucket, only with a key and a city or neighbourhood; whatever arrived within 4 s.
    func research(_ place: LocalBriefPlace) async -> [String] {
        guard exa.isConfigured, let area = LocalBriefRules.searchArea(place) else { return [] }
        let exa = self.exa
        // Each search's own timeout is the cap and they run in parallel, so the fan-out ends within it.
        let byBucket = await withTaskGroup(of: (String, [String]).self) { group in
            for (bucket, topic) in LocalBriefRules.buckets {
                group.addTask {
                    let hits = await exa.search(
                        query: "\(area) \(topic)", numResults: 2, snippetLength: LocalBriefRules.snippetLength,
                        timeout: Self.exaCap
                    ).hits.prefix(2)
                    return (
                        bucket,
                        hits.map {
                            LocalBriefRules.sourceLine(
                                bucket: bucket, title: $0.title, snippet: $0.snippet, url: $0.url)
                        }
                    )
                }
            }
            var out: [String: [String]] = [:]
            for await (bucket, lines) in group { out[bucket] = lines }
            return out
        }
        return LocalBriefRules.buckets.keys.sorted().flatMap { byBucket[$0] ?? [] }
    }
}
