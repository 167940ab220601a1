import Finance
import Runtime

/// Place filtering and ranking (docs/COMPATIBILITY.md#places): drop places that are not businesses (administrative and
/// geographic features, medical, civic, education, worship, parks, tourist sights), then rank "brandish" places
/// first — food +3, retail or pharmacy +2, bank/gas/gym/lodging +2, a chain the brand seed knows +5 — keeping the
/// upstream order among equals, and keep the first `limit`.
public enum PlaceRanking {
    /// Types that disqualify a place.
    static let excludedTypes: Set<String> = [
        // administrative and geographic
        "locality", "political", "sublocality", "sublocality_level_1", "neighborhood", "administrative_area_level_1",
        "administrative_area_level_2", "administrative_area_level_3", "country", "postal_code", "route",
        "street_address", "premise", "natural_feature", "colloquial_area", "geocode", "intersection", "plus_code",
        // medical (pharmacies stay: they are retail)
        "hospital", "doctor", "dentist", "physiotherapist", "veterinary_care",
        // civic
        "city_hall", "courthouse", "embassy", "local_government_office", "police", "fire_station", "post_office",
        "library",
        // education
        "school", "primary_school", "secondary_school", "university",
        // worship
        "church", "mosque", "synagogue", "hindu_temple", "place_of_worship",
        // parks and tourist sights
        "park", "campground", "rv_park", "tourist_attraction", "museum", "zoo",
    ]

    static let foodTypes: Set<String> = [
        "restaurant", "cafe", "bakery", "meal_takeaway", "meal_delivery", "bar", "food",
    ]
    static let retailTypes: Set<String> = [
        "store", "supermarket", "grocery_or_supermarket", "convenience_store", "clothing_store", "department_store",
        "shopping_mall", "electronics_store", "shoe_store", "hardware_store", "furniture_store", "book_store",
        "home_goods_store", "pharmacy",
    ]
    static let serviceTypes: Set<String> = ["bank", "atm", "gas_station", "gym", "lodging"]

    public static func isExcluded(_ place: Place) -> Bool {
        place.types.contains { excludedTypes.contains($0) }
    }

    /// The brandish score of a place.
    public static func score(_ place: Place, matcher: BrandMatcher? = nil) -> Int {
        var score = 0
        if place.types.contains(where: foodTypes.contains) { score += 3 }
        if place.types.contains(where: retailTypes.contains) { score += 2 }
        if place.types.contains(where: serviceTypes.contains) { score += 2 }
        if isKnownChain(place, matcher: matcher) { score += 5 }
        return score
    }

    /// Whether the seed knows the place's brand (directly or as whole words of its name). Answers for the shared
    /// seed are memoized per name: a substring scan of the seed costs about a millisecond, and the same places are
    /// ranked again on every pan over a warm tile.
    public static func isKnownChain(_ place: Place, matcher: BrandMatcher? = nil) -> Bool {
        guard let matcher else {
            let key = (place.brand ?? "") + "\u{0}" + place.name
            if let known = knownChains[key] { return known }
            let known = isKnownChain(place, matcher: .shared)
            knownChains.set(key, known)
            return known
        }
        if let brand = place.brand, matcher.direct(brand) != nil { return true }
        return matcher.direct(place.name) != nil || matcher.longestSubstring(place.name) != nil
    }

    private static let knownChains = TTLCache<String, Bool>(ttl: .seconds(24 * 3600), capacity: 50_000)

    /// Filtered, ranked (stable) and cut to `limit`.
    public static func rank(_ places: [Place], limit: Int, matcher: BrandMatcher? = nil) -> [Place] {
        let kept = places.filter { !isExcluded($0) }
        let scored = kept.enumerated().map {
            (offset: $0.offset, score: score($0.element, matcher: matcher), place: $0.element)
        }
        let sorted = scored.sorted { a, b in a.score != b.score ? a.score > b.score : a.offset < b.offset }
        return sorted.prefix(max(0, limit)).map(\.place)
    }
}
