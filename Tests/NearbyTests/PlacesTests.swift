import Contracts
import Foundation
import HTTPServer
import Places
import Runtime
import TestSupport
import Testing
import UpstreamFakes

@testable import Places

/// Upstream parsing: well-formed answers, statuses, partial rows and garbage.
struct PlacesParsingTests {
    @Test func googleAcceptsOKAndZeroResultsAndRejectsOtherStatuses() throws {
        let center = LatLng(lat: 40.7, lng: -74)
        let ok = GooglePlaces.parse(Array(googleBody([("g1", "Starbucks", center, ["cafe", "food"])]).utf8))
        let places = try ok.get()
        #expect(places.map(\.id) == ["g1"] && places.first?.types == ["cafe", "food"])
        #expect((try GooglePlaces.parse(Array(googleBody([], status: "ZERO_RESULTS").utf8)).get()).isEmpty)
        #expect(
            GooglePlaces.parse(Array(googleBody([], status: "REQUEST_DENIED").utf8))
                == .failure(.status("REQUEST_DENIED")))
        #expect(GooglePlaces.parse(Array("<html>oops</html>".utf8)) == .failure(.invalidResponse))
        // Rows without an id, a name or a sane location are skipped, the rest kept.
        let mixed = """
            {"status":"OK","results":[{"name":"No id","geometry":{"location":{"lat":1,"lng":1}}},
            {"place_id":"x","name":"Bad","geometry":{"location":{"lat":"north","lng":1}}},
            {"place_id":"y","name":"Far","geometry":{"location":{"lat":91,"lng":1}}},
            {"place_id":"z","name":"Fine","geometry":{"location":{"lat":1,"lng":2}}}]}
            """
        #expect(try GooglePlaces.parse(Array(mixed.utf8)).get().map(\.id) == ["z"])
    }

    @Test func overpassMapsTagsDedupesAndSkipsNamelessElements() throws {
        let at = LatLng(lat: 40.7, lng: -74)
        let body = """
            {"elements":[
              {"type":"node","id":1,"lat":40.7,"lon":-74,"tags":{"name":"Starbucks","brand":"Starbucks","amenity":"cafe"}},
              {"type":"way","id":2,"center":{"lat":40.7001,"lon":-74.0001},"tags":{"name":"Starbucks","amenity":"cafe"}},
              {"type":"way","id":3,"center":{"lat":40.71,"lon":-74.01},"tags":{"brand":"CVS","shop":"chemist"}},
              {"type":"node","id":4,"lat":40.7,"lon":-74,"tags":{"amenity":"bench"}},
              {"type":"node","id":5,"lat":40.7,"lon":-74},
              {"type":"node","id":6,"lat":40.72,"lon":-74,"tags":{"name":"St Mary","amenity":"place_of_worship"}}
            ]}
            """
        let places = try Overpass.parse(Array(body.utf8)).get()
        #expect(places.map(\.id) == ["osm:node:1", "osm:way:3", "osm:node:6"])
        #expect(places[0].brand == "Starbucks" && places[0].types.contains("cafe"))
        #expect(places[1].name == "CVS" && places[1].types.contains("pharmacy"))
        #expect(places[2].types.contains("place_of_worship"))
        #expect(Overpass.parse(Array("{\"remark\":\"runtime error\"}".utf8)) == .failure(.invalidResponse))
        _ = at
    }

    @Test func photonBuildsIdsFromOSMTypeAndIdOrName() throws {
        let body = """
            {"features":[
              {"geometry":{"coordinates":[-74,40.7]},"properties":{"osm_type":"W","osm_id":77,"name":"Target","osm_key":"shop","osm_value":"department_store"}},
              {"geometry":{"coordinates":[-74.001,40.7]},"properties":{"name":"Target Express"}},
              {"geometry":{"coordinates":[1]},"properties":{"name":"Broken"}}
            ]}
            """
        let places = try Photon.parse(Array(body.utf8), fallbackName: "Target").get()
        #expect(places.map(\.id) == ["photon:W:77", "photon:N:Target Express"])
        #expect(places[0].types.contains("department_store"))
        #expect(Photon.parse(Array("[]".utf8), fallbackName: "x") == .failure(.invalidResponse))
    }
}

/// Filtering, ranking and tile keys (docs/COMPATIBILITY.md#places).
struct PlaceRankingTests {
    static func place(_ name: String, _ types: [String], brand: String? = nil) -> Place {
        Place(id: name, name: name, location: LatLng(lat: 1, lng: 1), types: types, brand: brand)
    }

    @Test func dropsNonBusinessesAndRanksBrandishPlacesFirst() {
        let places = [
            Self.place("City Hall", ["city_hall", "point_of_interest"]),
            Self.place("Joe's Hardware", ["hardware_store", "store"]),  // retail 2
            Self.place("Quiet Bistro", ["restaurant", "food"]),  // food 3
            Self.place("St Mary", ["church", "place_of_worship"]),
            Self.place("Starbucks", ["cafe", "food"]),  // food 3 + chain 5
            Self.place("Local Bank", ["bank", "finance"]),  // service 2
            Self.place("Central Park", ["park"]),
            Self.place("General Hospital", ["hospital", "health"]),
            Self.place("CVS Pharmacy", ["pharmacy", "health", "store"]),  // retail 2 + chain 5
            Self.place("Mystery", ["point_of_interest"]),  // 0
        ]
        let ranked = PlaceRanking.rank(places, limit: 25).map(\.name)
        #expect(ranked == ["Starbucks", "CVS Pharmacy", "Quiet Bistro", "Joe's Hardware", "Local Bank", "Mystery"])
        #expect(PlaceRanking.rank(places, limit: 2).map(\.name) == ["Starbucks", "CVS Pharmacy"])
        // The OSM brand tag counts as the chain even when the branch name does not say it.
        #expect(PlaceRanking.isKnownChain(Self.place("Downtown Roastery #12", ["cafe"], brand: "Starbucks")))
    }

    @Test(arguments: [
        (500.0, nil as Double?, 500), (449.0, nil, 400), (451.0, nil, 500), (30.0, nil, 100), (0.0, nil, 100),
        (1049.9, nil, 1000), (1050.0, nil, 1100), (80_000.0, nil, 50_000),
        (500.0, 17.0, 500), (500.0, 16.4, 500), (500.0, 15.0, 600), (450.0, 15.0, 400), (900.0, 14.2, 800),
        (1300.0, 13.0, 1600),
        (300.0, 12.0, 1600), (5000.0, 10.0, 6400), (5000.0, 3.0, 6400), (640.0, .nan, 600),
        // Numbers from outside: huge or infinite values are clamped, never converted as they are (which traps).
        (500.0, 1e300, 500), (5000.0, -1e300, 6400), (500.0, .infinity, 500), (1e308, 1e300, 50_000),
        (.greatestFiniteMagnitude, 10.0, 50_000), (-1e308, nil, 100),
    ])
    func radiusBuckets(radius: Double, zoom: Double?, expected: Int) {
        #expect(TileKey.radiusBucket(radius: radius, zoom: zoom) == expected)
    }

    @Test func tileKeyIsGeohash6AndRadiusBucket() throws {
        let key = try #require(TileKey(center: LatLng(lat: 40.7484, lng: -73.9857), radius: 620))
        #expect(key.description == "v1:dr5ru6:600")
        #expect(TileKey(center: LatLng(lat: 95, lng: 0), radius: 500) == nil)
    }
}

/// The cascade against loopback fakes: order, fallbacks, racing, slowness and exhaustion.
@Suite(.serialized) struct PlacesCascadeTests {
    @Test func googleAnswersFirstWithEveryTypeInParallel() async throws {
        let center = randomCenter()
        let fixture = try NearbyFixture(google: { request in
            let type = request.query["type"] ?? "?"
            if type == "cafe" {
                return jsonResponse(200, googleBody([("g-sbux", "Starbucks", center, ["cafe", "food"])]))
            }
            if type == "restaurant" {
                return jsonResponse(
                    200,
                    googleBody([
                        ("g-sbux", "Starbucks", center, ["cafe", "food"]), ("g-2", "Bistro", center, ["restaurant"]),
                    ]))
            }
            return jsonResponse(200, googleBody([], status: "ZERO_RESULTS"))
        })
        let outcome = await fixture.cascade().fetch(center: center, radius: 500, deadline: .now + .seconds(5))
        guard case .places(let places, let source) = outcome else {
            Issue.record("expected places, got \(outcome)")
            await fixture.shutdown()
            return
        }
        #expect(source == .google)
        #expect(Set(places.map(\.id)) == ["g-sbux", "g-2"])
        let requests = fixture.google.requests
        #expect(requests.count == 18)
        #expect(Set(requests.compactMap { $0.query["type"] }) == Set(PlacesConfiguration.googleTypes))
        #expect(requests.allSatisfy { $0.query["key"] == "test-google-key" && $0.query["radius"] == "500" })
        #expect(fixture.overpass[0].requestCount == 0 && fixture.photon.requestCount == 0)
        await fixture.shutdown()
    }

    @Test func withoutAGoogleKeyOpenStreetMapAnswersAndGoogleIsNeverCalled() async throws {
        let center = randomCenter()
        let fixture = try NearbyFixture(
            overpass: [
                { request in
                    jsonResponse(
                        200,
                        overpassBody([(11, center, ["name": "Starbucks", "brand": "Starbucks", "amenity": "cafe"])]))
                }
            ])
        let outcome = await fixture.cascade(googleKey: nil).fetch(
            center: center, radius: 300, deadline: .now + .seconds(5))
        guard case .places(let places, .overpass) = outcome else {
            Issue.record("expected overpass places, got \(outcome)")
            await fixture.shutdown()
            return
        }
        #expect(places.map(\.id) == ["osm:node:11"] && places.first?.brand == "Starbucks")
        #expect(fixture.google.requestCount == 0)
        let request = try #require(fixture.overpass[0].lastRequest)
        #expect(request.method == "POST" && request.headers["User-Agent"] == PlacesConfiguration.osmUserAgent)
        #expect(request.bodyText.hasPrefix("data=") && request.bodyText.contains("around%3A300"))
        await fixture.shutdown()
    }

    @Test func googleFailureFallsBackToTheFirstNonEmptyOverpassMirror() async throws {
        let center = randomCenter()
        let good = overpassBody([(21, center, ["name": "Chipotle", "amenity": "fast_food"])])
        let fixture = try NearbyFixture(
            google: { _ in jsonResponse(200, googleBody([], status: "OVER_QUERY_LIMIT")) },
            overpass: [
                { _ in jsonResponse(200, "garbage") },
                { _ in
                    try? await Task.sleep(for: .seconds(2))
                    return jsonResponse(200, overpassBody([(99, center, ["name": "Slow Cafe", "amenity": "cafe"])]))
                },
                { _ in jsonResponse(200, overpassBody([])) },
                { _ in jsonResponse(200, good) },
            ])
        let started = ContinuousClock.now
        let outcome = await fixture.cascade(timeouts: .seconds(3)).fetch(
            center: center, radius: 500, deadline: .now + .seconds(8))
        #expect(ContinuousClock.now - started < .milliseconds(1500))
        guard case .places(let places, .overpass) = outcome else {
            Issue.record("expected overpass places, got \(outcome)")
            await fixture.shutdown()
            return
        }
        #expect(places.map(\.name) == ["Chipotle"])
        await fixture.shutdown()
    }

    @Test func emptyOverpassFallsBackToPhotonWhichKeepsOnlyPlacesInsideTheRadius() async throws {
        let center = randomCenter()
        let near = offset(center, northMetres: 200)
        let far = offset(center, northMetres: 5000)
        let fixture = try NearbyFixture(
            overpass: [{ _ in jsonResponse(200, overpassBody([])) }],
            photon: { request in
                switch request.query["q"] {
                case "Starbucks": jsonResponse(200, photonBody([(1, "Starbucks", near, "amenity", "cafe")]))
                case "CVS": jsonResponse(200, photonBody([(2, "CVS", far, "shop", "chemist")]))
                case "Target": jsonResponse(503, "{}")
                default: jsonResponse(200, photonBody([]))
                }
            })
        let outcome = await fixture.cascade(googleKey: nil).fetch(
            center: center, radius: 500, deadline: .now + .seconds(5))
        guard case .places(let places, .photon) = outcome else {
            Issue.record("expected photon places, got \(outcome)")
            await fixture.shutdown()
            return
        }
        #expect(places.map(\.id) == ["photon:N:1"])
        #expect(fixture.photon.requestCount == PlacesConfiguration.photonChains.count)
        #expect(
            fixture.photon.requests.allSatisfy {
                $0.query["limit"] == "3" && $0.query["lat"] != nil && $0.query["lon"] != nil
            })
        await fixture.shutdown()
    }

    @Test func everySourceFailingNamesEachFailure() async throws {
        let fixture = try NearbyFixture(
            google: { _ in jsonResponse(500, "{}") }, overpass: [{ _ in jsonResponse(200, "not json") }],
            photon: { _ in jsonResponse(503, "{}") })
        let outcome = await fixture.cascade().fetch(center: randomCenter(), radius: 500, deadline: .now + .seconds(5))
        #expect(outcome == .failed(["google: http 500", "overpass: invalid response", "photon: http 503"]))
        await fixture.shutdown()
    }

    @Test func slowSourcesAreCutToTheDeadline() async throws {
        let slow: FakeUpstream.Handler = { _ in
            try? await Task.sleep(for: .seconds(3))
            return jsonResponse(200, "{}")
        }
        let fixture = try NearbyFixture(google: slow, overpass: [slow], photon: slow)
        let started = ContinuousClock.now
        let outcome = await fixture.cascade(timeouts: .seconds(10)).fetch(
            center: randomCenter(), radius: 500, deadline: .now + .milliseconds(1500))
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < .milliseconds(1500))
        guard case .failed(let reasons) = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            await fixture.shutdown()
            return
        }
        #expect(reasons.first == "google: timeout")
        #expect(reasons.last == "photon: no time left")
        await fixture.shutdown()
    }
}
