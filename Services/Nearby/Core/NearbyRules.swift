import Contracts
import Finance
import Foundation
import Geo
import Runtime

/// A ranked place as the nearby answer needs it: its wire form and the name the brand join resolves.
public struct NearbyCandidate: Sendable, Equatable {
    public let place: NearbyPlace
    /// The brand when the source named one, else the place's name.
    public let joinName: String

    public init(place: NearbyPlace, joinName: String) {
        self.place = place
        self.joinName = joinName
    }
}

/// Every places source failed: `places lookup failed: <source>: <reason>; …`.
public struct PlacesLookupFailed: Error, Sendable, Equatable {
    public let message: String

    public init(message: String) { self.message = message }

    /// The 502 message of a cascade that gave no tile (`failures`: `<source>: <reason>` each).
    public init(failures: [String]) {
        let detail = failures.isEmpty ? "no source answered" : failures.joined(separator: "; ")
        self.init(message: "places lookup failed: \(detail)")
    }

    /// A command whose point makes no tile.
    public static let invalidLocation = PlacesLookupFailed(message: "places lookup failed: invalid location")
}

/// The rules of `GET /v1/nearby`, pure: the brand join's result and the caller's captures turned into the items.
public enum NearbyRules {
    /// `Cache-Control` by caller: signed-in answers carry per-user state.
    public static func cacheControl(signedIn: Bool) -> String {
        signedIn ? "private, max-age=60" : "public, max-age=60, stale-while-revalidate=300"
    }

    /// The items in ranking order and how many are investable. `resolutions` are by brand key; `captures` nil for an
    /// anonymous caller (no `state`), else `captured` or `seen` per place.
    public static func items(
        _ candidates: [NearbyCandidate], resolutions: [String: BrandResolution], captures: Set<Capture>?
    ) -> (items: [NearbyItem], investables: Int) {
        var items: [NearbyItem] = []
        var investables = 0
        for candidate in candidates {
            let investable = resolutions[BrandSeed.normalize(candidate.joinName)].flatMap(Self.investable)
            if investable != nil { investables += 1 }
            var state: NearbyState?
            if let captures {
                state =
                    isCaptured(candidate, ticker: investable?.brand.ticker?.symbol, in: captures) ? .captured : .seen
            }
            items.append(NearbyItem(place: candidate.place, investable: investable, state: state))
        }
        return (items, investables)
    }

    /// `{brand, comparables: [], etfs: [], confidence: high, sources}` for a public brand; nil otherwise.
    public static func investable(_ resolution: BrandResolution) -> Investable? {
        guard resolution.brand.isPublic, resolution.brand.ticker != nil else { return nil }
        let sources =
            resolution.sources.isEmpty
            ? [Source(provider: .manual, fetchedAt: Timestamp.iso8601(Date()), confidence: .high)] : resolution.sources
        return Investable(brand: resolution.brand, confidence: .high, sources: sources)
    }

    /// Captured when the user has a find in the place's tile with the same brand key, or the same ticker.
    public static func isCaptured(_ candidate: NearbyCandidate, ticker: String?, in captures: Set<Capture>) -> Bool {
        guard let tile = tile(candidate.place.location) else { return false }
        let keys: Set<String> = [BrandSeed.normalize(candidate.joinName), BrandSeed.normalize(candidate.place.name)]
        return captures.contains { capture in
            capture.tile == tile && (keys.contains(capture.brandKey) || (ticker != nil && capture.ticker == ticker))
        }
    }

    /// The geohash-6 tile of a point (the captures read model's grain).
    public static func tile(_ location: LatLng) -> String? {
        Geohash.encode(lat: location.lat, lng: location.lng, precision: 6)
    }
}

/// The rules of `GET /v1/proxy/places`, pure: Google's page size and the `type`/`keyword` filter.
public enum PlacesProxyRules {
    /// Google's page size for one Nearby Search answer.
    public static let pageSize = 20

    /// A place has the asked type, and its name or brand contains the keyword (case-insensitive).
    public static func matches(name: String, brand: String?, types: [String], _ command: PlacesProxyCommand) -> Bool {
        if let type = command.type, !types.contains(type) { return false }
        guard let keyword = command.keyword?.lowercased(), !keyword.isEmpty else { return true }
        return name.lowercased().contains(keyword) || (brand?.lowercased().contains(keyword) ?? false)
    }
}
