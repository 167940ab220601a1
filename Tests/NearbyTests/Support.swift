import Contracts
import Exa
import Foundation
import HTTPServer
import MarketData
import NearbyAdapters
import OpenRouter
import Places
import Postgres
import Redis
import Resolver
import Runtime
import Synchronization
import TestSupport
import UpstreamFakes

/// A logger that keeps its lines in memory (and off the test output).
func quietLogger() -> Logger { Logger(label: "nearby-tests", level: .error, sink: .memory()) }

func jsonResponse(_ status: Int, _ text: String) -> HTTPResponse { .json(status, raw: Array(text.utf8)) }

/// A point somewhere in the continental US no other test (or earlier run) used: every test gets fresh tiles.
func randomCenter() -> LatLng {
    LatLng(lat: Double.random(in: 30...45), lng: Double.random(in: -120 ... -75))
}

/// A point `metres` north of `center`.
func offset(_ center: LatLng, northMetres metres: Double) -> LatLng {
    LatLng(lat: center.lat + metres / 111_320, lng: center.lng)
}

/// Google Places legacy JSON for places.
func googleBody(_ places: [(id: String, name: String, at: LatLng, types: [String])], status: String = "OK") -> String {
    let results = places.map { p in
        """
        {"place_id":"\(p.id)","name":"\(p.name)","geometry":{"location":{"lat":\(p.at.lat),"lng":\(p.at.lng)}},\
        "types":[\(p.types.map { "\"\($0)\"" }.joined(separator: ","))]}
        """
    }
    return "{\"status\":\"\(status)\",\"results\":[\(results.joined(separator: ","))]}"
}

/// Overpass JSON for nodes with tags.
func overpassBody(_ nodes: [(id: Int, at: LatLng, tags: [String: String])]) -> String {
    let elements = nodes.map { n in
        let tags = n.tags.map { "\"\($0.key)\":\"\($0.value)\"" }.joined(separator: ",")
        return "{\"type\":\"node\",\"id\":\(n.id),\"lat\":\(n.at.lat),\"lon\":\(n.at.lng),\"tags\":{\(tags)}}"
    }
    return "{\"version\":0.6,\"elements\":[\(elements.joined(separator: ","))]}"
}

/// Photon GeoJSON for features.
func photonBody(_ features: [(id: Int, name: String, at: LatLng, key: String, value: String)]) -> String {
    let items = features.map { f in
        """
        {"type":"Feature","geometry":{"type":"Point","coordinates":[\(f.at.lng),\(f.at.lat)]},\
        "properties":{"osm_type":"N","osm_id":\(f.id),"name":"\(f.name)","osm_key":"\(f.key)","osm_value":"\(f.value)"}}
        """
    }
    return "{\"type\":\"FeatureCollection\",\"features\":[\(items.joined(separator: ","))]}"
}

/// The loopback fakes one Nearby test talks to, and the wiring over them.
final class NearbyFixture: Sendable {
    let google: FakeUpstream
    let overpass: [FakeUpstream]
    let photon: FakeUpstream
    let exa: FakeUpstream
    let market: FakeUpstream

    init(
        google: @escaping FakeUpstream.Handler = { _ in jsonResponse(500, "{}") },
        overpass: [FakeUpstream.Handler] = [{ _ in jsonResponse(500, "{}") }],
        photon: @escaping FakeUpstream.Handler = { _ in jsonResponse(500, "{}") },
        exa: @escaping FakeUpstream.Handler = { _ in jsonResponse(200, "{\"results\":[]}") }
    ) throws {
        self.google = try FakeUpstream(google)
        self.overpass = try overpass.map { try FakeUpstream($0) }
        self.photon = try FakeUpstream(photon)
        self.exa = try FakeUpstream(exa)
        self.market = try FakeUpstream { _ in jsonResponse(404, "{}") }
    }

    func configuration(googleKey: String? = "test-google-key", timeouts: Duration = .seconds(2)) -> PlacesConfiguration
    {
        PlacesConfiguration(
            googleAPIKey: googleKey, googleBaseURL: google.baseURL,
            overpassURLs: overpass.map { $0.baseURL + "/api/interpreter" },
            photonBaseURL: photon.baseURL, googleTimeout: timeouts, overpassTimeout: timeouts, photonTimeout: timeouts)
    }

    func cascade(googleKey: String? = "test-google-key", timeouts: Duration = .seconds(2)) -> PlacesCascade {
        PlacesCascade(configuration: configuration(googleKey: googleKey, timeouts: timeouts), http: testHTTPClient)
    }

    /// The brand join over the shared resolver, with the Exa and market fakes.
    func join(redis: RedisClient, db: PostgresPool?) -> BrandJoin {
        let logger = quietLogger()
        let cache = BrandTickerCache(redis: redis, db: db, logger: logger)
        let resolver = TickerResolver(
            cache: cache,
            market: MarketDataClient(
                configuration: MarketDataConfiguration(primary: .yahoo, yahooBaseURL: market.baseURL),
                http: testHTTPClient, logger: logger),
            exa: ExaClient(baseURL: exa.baseURL, apiKey: "test-exa-key", http: testHTTPClient, logger: logger),
            openRouter: OpenRouterClient(apiKey: nil, http: testHTTPClient, logger: logger), logger: logger)
        return BrandJoin(resolver: resolver, cache: cache)
    }

    /// The whole answerer over real Redis and Postgres.
    func answerer(redis: RedisClient, db: PostgresPool?, googleKey: String? = "test-google-key") -> NearbyAnswerer {
        let logger = quietLogger()
        return NearbyAnswerer(
            tiles: PlacesTileCache(cascade: cascade(googleKey: googleKey), redis: redis, logger: logger),
            join: join(redis: redis, db: db), captures: db.map(CapturesStore.init), logger: logger)
    }

    var all: [FakeUpstream] { [google, photon, exa, market] + overpass }

    func shutdown() async {
        for fake in all { await fake.shutdown() }
    }
}

enum Stack {
    static func redis() async throws -> RedisClient {
        try await RedisClient.make(url: try TestEnvironment.require("REDIS_URL"), size: 4, logger: quietLogger())
    }

    static func postgres() async throws -> PostgresPool {
        let db = try await PostgresPool.make(
            url: try TestEnvironment.require("POSTGRES_URL"), size: 4, logger: quietLogger())
        try await CapturesStore.migrate(db)
        try await BrandTickerCache.migrate(db)
        return db
    }
}

/// A counter shared with a fake's handler.
final class Counter: Sendable {
    private let value = Mutex(0)
    @discardableResult func next() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }
    var count: Int { value.withLock { $0 } }
}
