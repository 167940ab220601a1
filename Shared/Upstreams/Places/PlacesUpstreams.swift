import Contracts
import Foundation
import Geo
import HTTPClient
import Runtime

/// Why one places source gave no answer. The text names the failure, never an exception or a URL (keys live in
/// Google's query string).
enum PlacesFailure: Error, Sendable, Equatable, CustomStringConvertible {
    case timeout
    case network
    case http(Int)
    /// Google's `status` other than `OK`/`ZERO_RESULTS` (e.g. `REQUEST_DENIED`).
    case status(String)
    case invalidResponse
    /// The request budget was spent before this source could be asked.
    case noTimeLeft

    public var description: String {
        switch self {
        case .timeout: "timeout"
        case .network: "network error"
        case .http(let status): "http \(status)"
        case .status(let status): "status \(status)"
        case .invalidResponse: "invalid response"
        case .noTimeLeft: "no time left"
        }
    }
}

/// One GET/POST to a places source; a 2xx body or the failure.
struct PlacesHTTP: Sendable {
    let http: HTTPClient

    func fetch(_ request: HTTPClientRequest, source: PlacesSource) async -> Result<[UInt8], PlacesFailure> {
        let result: Result<[UInt8], PlacesFailure>
        do {
            let response = try await http.execute(request)
            result = (200..<300).contains(response.status) ? .success(response.body) : .failure(.http(response.status))
        } catch {
            result = .failure(error.kind == .timeout || error.kind == .cancelled ? .timeout : .network)
        }
        let outcome: String
        switch result {
        case .success: outcome = "ok"
        case .failure(let failure):
            switch failure {
            case .timeout: outcome = "timeout"
            case .http: outcome = "http_error"
            default: outcome = "network_error"
            }
        }
        MetricsRegistry.shared.counter(
            MetricNames.placesRequests, help: "Places upstream requests",
            labels: ["source": source.rawValue, "outcome": outcome]
        ).increment()
        return result
    }

    /// RFC 3986 unreserved characters stay; everything else is %-encoded (query values and form fields).
    static func percentEncoded(_ s: String) -> String {
        var out = ""
        let hex = Array("0123456789ABCDEF".unicodeScalars)
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                out += "%"
                out.unicodeScalars.append(hex[Int(b >> 4)])
                out.unicodeScalars.append(hex[Int(b & 0x0F)])
            }
        }
        return out
    }

    /// Coordinates as plain decimals (no exponent), at most 7 places.
    static func coordinate(_ value: Double) -> String {
        String(format: "%.7f", value)
    }
}

/// Google Places legacy Nearby Search: one request per type, in parallel, merged by `place_id`.
struct GooglePlaces: Sendable {
    let configuration: PlacesConfiguration
    let http: PlacesHTTP

    /// Places of every type; an empty list when Google answered but found nothing. Fails only when every type
    /// request failed (the first failure is reported).
    func nearby(center: LatLng, radius: Int, timeout: Duration) async -> Result<[Place], PlacesFailure> {
        guard let key = configuration.googleAPIKey else { return .failure(.status("NOT_CONFIGURED")) }
        let types = PlacesConfiguration.googleTypes
        let results = await withTaskGroup(of: (Int, Result<[Place], PlacesFailure>).self) { group in
            for (index, type) in types.enumerated() {
                group.addTask {
                    let url =
                        "\(configuration.googleBaseURL)/maps/api/place/nearbysearch/json?location="
                        + "\(PlacesHTTP.coordinate(center.lat)),\(PlacesHTTP.coordinate(center.lng))&radius=\(radius)"
                        + "&type=\(type)&key=\(PlacesHTTP.percentEncoded(key))"
                    var request = HTTPClientRequest(url: url, headers: [("Accept", "application/json")])
                    request.timeout = timeout
                    request.connectTimeout = min(request.connectTimeout, timeout)
                    let body = await http.fetch(request, source: .google)
                    return (index, body.flatMap(Self.parse))
                }
            }
            var out = [Result<[Place], PlacesFailure>?](repeating: nil, count: types.count)
            for await (index, result) in group { out[index] = result }
            return out.compactMap { $0 }
        }
        return PlacesMerge.merge(results)
    }

    private struct Envelope: Decodable {
        struct Result: Decodable {
            struct Geometry: Decodable {
                struct Location: Decodable {
                    var lat: Double?
                    var lng: Double?
                }
                var location: Location?
            }
            var placeID: String?
            var name: String?
            var geometry: Geometry?
            var types: [String]?

            enum CodingKeys: String, CodingKey {
                case placeID = "place_id"
                case name, geometry, types
            }

            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                placeID = try? c.decodeIfPresent(String.self, forKey: .placeID)
                name = try? c.decodeIfPresent(String.self, forKey: .name)
                geometry = try? c.decodeIfPresent(Geometry.self, forKey: .geometry)
                types = try? c.decodeIfPresent([String].self, forKey: .types)
            }
        }
        var status: String?
        var results: [Result]?
    }

    /// `status` `OK`/`ZERO_RESULTS`; results without an id, a name or a valid location are skipped.
    static func parse(_ body: [UInt8]) -> Result<[Place], PlacesFailure> {
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(body)), let status = envelope.status
        else { return .failure(.invalidResponse) }
        guard status == "OK" || status == "ZERO_RESULTS" else { return .failure(.status(status)) }
        var places: [Place] = []
        for result in envelope.results ?? [] {
            guard let id = result.placeID.flatMap(nonEmpty), let name = result.name.flatMap(nonEmpty),
                let location = LatLng.validated(
                    lat: result.geometry?.location?.lat, lng: result.geometry?.location?.lng)
            else { continue }
            places.append(Place(id: id, name: name, location: location, types: result.types ?? []))
        }
        return .success(places)
    }
}

/// Overpass: every mirror raced, the first non-empty answer wins.
struct Overpass: Sendable {
    let configuration: PlacesConfiguration
    let http: PlacesHTTP

    static func query(center: LatLng, radius: Int, timeoutSeconds: Int) -> String {
        let around = "around:\(radius),\(PlacesHTTP.coordinate(center.lat)),\(PlacesHTTP.coordinate(center.lng))"
        return "[out:json][timeout:\(timeoutSeconds)];(node(\(around))[brand];node(\(around))[shop];"
            + "node(\(around))[amenity~\"^(restaurant|cafe|fast_food|bank|pharmacy|fuel|cinema|gym)$\"];);out center 40;"
    }

    func nearby(center: LatLng, radius: Int, timeout: Duration) async -> Result<[Place], PlacesFailure> {
        let urls = configuration.overpassURLs
        guard !urls.isEmpty else { return .failure(.status("NOT_CONFIGURED")) }
        let seconds = max(1, Int(timeout.inSeconds.rounded(.up)))
        let form =
            "data=" + PlacesHTTP.percentEncoded(Self.query(center: center, radius: radius, timeoutSeconds: seconds))
        return await withTaskGroup(of: Result<[Place], PlacesFailure>.self) { group in
            for url in urls {
                group.addTask {
                    var request = HTTPClientRequest(
                        method: "POST", url: url,
                        headers: [
                            ("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json"),
                            ("User-Agent", PlacesConfiguration.osmUserAgent),
                        ], body: Array(form.utf8))
                    request.timeout = timeout
                    request.connectTimeout = min(request.connectTimeout, timeout)
                    return await http.fetch(request, source: .overpass).flatMap(Self.parse)
                }
            }
            var firstFailure: PlacesFailure?
            var answeredEmpty = false
            for await result in group {
                switch result {
                case .success(let places) where !places.isEmpty:
                    group.cancelAll()
                    return .success(places)
                case .success:
                    answeredEmpty = true
                case .failure(let failure):
                    if firstFailure == nil { firstFailure = failure }
                }
            }
            if answeredEmpty { return .success([]) }
            return .failure(firstFailure ?? .invalidResponse)
        }
    }

    private struct Envelope: Decodable {
        struct Element: Decodable {
            struct Center: Decodable {
                var lat: Double?
                var lon: Double?
            }
            var type: String?
            var id: Int64?
            var lat: Double?
            var lon: Double?
            var center: Center?
            var tags: [String: String]?

            enum CodingKeys: String, CodingKey { case type, id, lat, lon, center, tags }
            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                type = try? c.decodeIfPresent(String.self, forKey: .type)
                id = try? c.decodeIfPresent(Int64.self, forKey: .id)
                lat = try? c.decodeIfPresent(Double.self, forKey: .lat)
                lon = try? c.decodeIfPresent(Double.self, forKey: .lon)
                center = try? c.decodeIfPresent(Center.self, forKey: .center)
                tags = try? c.decodeIfPresent([String: String].self, forKey: .tags)
            }
        }
        var elements: [Element]
    }

    /// Elements with a name (or brand) and a location; ids `osm:<type>:<id>`; deduplicated by lower-cased name on a
    /// 3-decimal grid (a chain's node and its building way count once).
    static func parse(_ body: [UInt8]) -> Result<[Place], PlacesFailure> {
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(body)) else {
            return .failure(.invalidResponse)
        }
        var places: [Place] = []
        var seen = Set<String>()
        for element in envelope.elements {
            guard let type = element.type, ["node", "way", "relation"].contains(type), let id = element.id,
                let tags = element.tags,
                let name = tags["name"].flatMap(nonEmpty) ?? tags["brand"].flatMap(nonEmpty),
                let location = LatLng.validated(
                    lat: element.lat ?? element.center?.lat, lng: element.lon ?? element.center?.lon)
            else { continue }
            let cell =
                "\(name.lowercased())|\(Int((location.lat * 1000).rounded()))|\(Int((location.lng * 1000).rounded()))"
            guard seen.insert(cell).inserted else { continue }
            places.append(
                Place(
                    id: "osm:\(type):\(id)", name: name, location: location, types: OSMTypes.types(tags: tags),
                    brand: tags["brand"].flatMap(nonEmpty)))
        }
        return .success(places)
    }
}

/// Photon: the last resort, asked about 12 well-known chains near the point.
struct Photon: Sendable {
    let configuration: PlacesConfiguration
    let http: PlacesHTTP

    func nearby(center: LatLng, radius: Int, timeout: Duration) async -> Result<[Place], PlacesFailure> {
        let chains = PlacesConfiguration.photonChains
        let results = await withTaskGroup(of: (Int, Result<[Place], PlacesFailure>).self) { group in
            for (index, chain) in chains.enumerated() {
                group.addTask {
                    let url =
                        "\(configuration.photonBaseURL)/api/?q=\(PlacesHTTP.percentEncoded(chain))"
                        + "&lat=\(PlacesHTTP.coordinate(center.lat))&lon=\(PlacesHTTP.coordinate(center.lng))&limit=3"
                    var request = HTTPClientRequest(
                        url: url,
                        headers: [("Accept", "application/json"), ("User-Agent", PlacesConfiguration.osmUserAgent)])
                    request.timeout = timeout
                    request.connectTimeout = min(request.connectTimeout, timeout)
                    let result = await http.fetch(request, source: .photon).flatMap {
                        Self.parse($0, fallbackName: chain)
                    }
                    return (index, result)
                }
            }
            var out = [Result<[Place], PlacesFailure>?](repeating: nil, count: chains.count)
            for await (index, result) in group { out[index] = result }
            return out.compactMap { $0 }
        }
        return PlacesMerge.merge(results) { place in
            haversineMetres(lat1: center.lat, lng1: center.lng, lat2: place.location.lat, lng2: place.location.lng)
                <= Double(radius)
        }
    }

    private struct Envelope: Decodable {
        struct Feature: Decodable {
            struct Geometry: Decodable { var coordinates: [Double]? }
            struct Properties: Decodable {
                var osmType: String?
                var osmID: Int64?
                var name: String?
                var osmKey: String?
                var osmValue: String?

                enum CodingKeys: String, CodingKey {
                    case osmType = "osm_type"
                    case osmID = "osm_id"
                    case name
                    case osmKey = "osm_key"
                    case osmValue = "osm_value"
                }
                init(from decoder: any Decoder) throws {
                    let c = try decoder.container(keyedBy: CodingKeys.self)
                    osmType = try? c.decodeIfPresent(String.self, forKey: .osmType)
                    osmID = try? c.decodeIfPresent(Int64.self, forKey: .osmID)
                    name = try? c.decodeIfPresent(String.self, forKey: .name)
                    osmKey = try? c.decodeIfPresent(String.self, forKey: .osmKey)
                    osmValue = try? c.decodeIfPresent(String.self, forKey: .osmValue)
                }
            }
            var geometry: Geometry?
            var properties: Properties?

            enum CodingKeys: String, CodingKey { case geometry, properties }
            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                geometry = try? c.decodeIfPresent(Geometry.self, forKey: .geometry)
                properties = try? c.decodeIfPresent(Properties.self, forKey: .properties)
            }
        }
        var features: [Feature]
    }

    /// GeoJSON features (`coordinates` are `[lon, lat]`); ids `photon:<osm_type>:<osm_id|name>`.
    static func parse(_ body: [UInt8], fallbackName: String) -> Result<[Place], PlacesFailure> {
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(body)) else {
            return .failure(.invalidResponse)
        }
        var places: [Place] = []
        for feature in envelope.features {
            guard let coordinates = feature.geometry?.coordinates, coordinates.count >= 2,
                let location = LatLng.validated(lat: coordinates[1], lng: coordinates[0])
            else { continue }
            let properties = feature.properties
            let name = properties?.name.flatMap(nonEmpty) ?? fallbackName
            let osmType = properties?.osmType.flatMap(nonEmpty) ?? "N"
            let identity = properties?.osmID.map(String.init) ?? name
            var tags: [String: String] = [:]
            if let key = properties?.osmKey, let value = properties?.osmValue { tags[key] = value }
            places.append(
                Place(
                    id: "photon:\(osmType):\(identity)", name: name, location: location,
                    types: OSMTypes.types(tags: tags)))
        }
        return .success(places)
    }
}

/// The trimmed text, or nil when blank.
func nonEmpty(_ s: String) -> String? {
    let trimmed = s.trimmingCharacters(in: .whitespacesAndNewlines)
    return trimmed.isEmpty ? nil : trimmed
}

/// Merges the answers of parallel place queries: places deduplicated by id in query order, kept by `keep`; a failure
/// only when no query succeeded (then the first failure).
enum PlacesMerge {
    static func merge(
        _ results: [Result<[Place], PlacesFailure>], keep: (Place) -> Bool = { _ in true }
    ) -> Result<[Place], PlacesFailure> {
        var merged: [Place] = []
        var seen = Set<String>()
        var firstFailure: PlacesFailure?
        var anySuccess = false
        for result in results {
            switch result {
            case .success(let places):
                anySuccess = true
                for place in places where keep(place) && seen.insert(place.id).inserted { merged.append(place) }
            case .failure(let failure):
                if firstFailure == nil { firstFailure = failure }
            }
        }
        if !anySuccess, let firstFailure { return .failure(firstFailure) }
        return .success(merged)
    }
}
