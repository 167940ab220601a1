import Contracts

/// Which upstream answered a places lookup.
public enum PlacesSource: String, Codable, Sendable, CaseIterable {
    case google, overpass, photon

    /// The attribution a response carries for places from this source (OpenStreetMap data is ODbL).
    public var attribution: String {
        switch self {
        case .google: "Google Places"
        case .overpass: "© OpenStreetMap contributors (Overpass API)"
        case .photon: "© OpenStreetMap contributors (Photon by Komoot)"
        }
    }
}

/// A place as fetched and cached: the wire place plus the OpenStreetMap `brand` tag when there is one (a better
/// key for the brand → ticker join than a branch's name).
public struct Place: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var location: LatLng
    public var types: [String]
    public var brand: String?

    public init(id: String, name: String, location: LatLng, types: [String], brand: String? = nil) {
        self.id = id
        self.name = name
        self.location = location
        self.types = types
        self.brand = brand
    }

    /// The `NearbyItem.place` shape.
    public var wire: NearbyPlace { NearbyPlace(id: id, name: name, location: location, types: types) }

    /// The name the brand join looks up: the brand tag when present, else the name.
    public var joinName: String { brand ?? name }
}

/// OpenStreetMap tags → Google-style place types, so filtering and ranking treat every source alike.
enum OSMTypes {
    static func types(tags: [String: String]) -> [String] {
        var out: [String] = []
        if let amenity = tags["amenity"] { out += amenityTypes[amenity] ?? [] }
        if let shop = tags["shop"] { out += shopTypes[shop] ?? ["store"] }
        if let tourism = tags["tourism"] { out += tourismTypes[tourism] ?? [] }
        if let leisure = tags["leisure"] { out += leisureTypes[leisure] ?? [] }
        if let healthcare = tags["healthcare"], healthcare != "pharmacy" { out.append("health") }
        out += ["point_of_interest", "establishment"]
        var seen = Set<String>()
        return out.filter { seen.insert($0).inserted }
    }

    private static let amenityTypes: [String: [String]] = [
        "restaurant": ["restaurant", "food"], "cafe": ["cafe", "food"],
        "fast_food": ["meal_takeaway", "restaurant", "food"], "bar": ["bar"], "pub": ["bar"],
        "ice_cream": ["food"], "bank": ["bank", "finance"], "atm": ["atm", "finance"],
        "pharmacy": ["pharmacy", "health", "store"], "fuel": ["gas_station"], "cinema": ["movie_theater"],
        "gym": ["gym"], "hospital": ["hospital", "health"], "clinic": ["doctor", "health"],
        "doctors": ["doctor", "health"], "dentist": ["dentist", "health"], "place_of_worship": ["place_of_worship"],
        "school": ["school"], "university": ["university"], "college": ["university"], "kindergarten": ["school"],
        "police": ["police"], "townhall": ["city_hall"], "courthouse": ["courthouse"], "post_office": ["post_office"],
        "fire_station": ["fire_station"], "library": ["library"],
    ]
    private static let shopTypes: [String: [String]] = [
        "supermarket": ["supermarket", "grocery_or_supermarket", "store"],
        "convenience": ["convenience_store", "store"], "clothes": ["clothing_store", "store"],
        "shoes": ["shoe_store", "store"], "department_store": ["department_store", "store"],
        "mall": ["shopping_mall"], "electronics": ["electronics_store", "store"],
        "bakery": ["bakery", "food", "store"], "chemist": ["pharmacy", "store"],
        "hardware": ["hardware_store", "store"], "doityourself": ["hardware_store", "store"],
        "furniture": ["furniture_store", "store"], "books": ["book_store", "store"],
    ]
    private static let tourismTypes: [String: [String]] = [
        "hotel": ["lodging"], "motel": ["lodging"], "hostel": ["lodging"], "guest_house": ["lodging"],
        "attraction": ["tourist_attraction"], "museum": ["museum", "tourist_attraction"],
        "viewpoint": ["tourist_attraction"], "zoo": ["zoo", "tourist_attraction"],
    ]
    private static let leisureTypes: [String: [String]] = [
        "fitness_centre": ["gym"], "sports_centre": ["gym"], "park": ["park"], "garden": ["park"],
        "playground": ["park"],
    ]
}
