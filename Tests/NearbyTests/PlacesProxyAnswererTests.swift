import Contracts
import Foundation
import HTTPServer
import NearbyAdapters
import NearbyCore
import Places
import Postgres
import Redis
import TestSupport
import Testing
import UpstreamFakes

/// `GET /v1/proxy/places` inside Nearby's library: the tile nearby uses (real Redis), narrowed by `type` and
/// `keyword`, in Google's Nearby Search shape, with the server's key never in the answer.
@Suite(.serialized) struct PlacesProxyAnswererTests {
    @Test func answersGooglesShapeFromTheTileNearbyUses() async throws {
        let redis = try await Stack.redis()
        let db = try await Stack.postgres()
        let center = randomCenter()
        let googleCalls = Counter()
        let fixture = try NearbyFixture(google: { request in
            googleCalls.next()
            switch request.query["type"] {
            case "cafe":
                return jsonResponse(
                    200, googleBody([("p-sbux", "Starbucks", center, ["cafe", "food", "point_of_interest"])]))
            case "restaurant":
                return jsonResponse(
                    200,
                    googleBody([
                        ("p-cmg", "Chipotle Mexican Grill", offset(center, northMetres: 80), ["restaurant", "food"])
                    ]))
            case "bank":
                return jsonResponse(
                    200, googleBody([("p-jpm", "Chase Bank", offset(center, northMetres: 40), ["bank", "finance"])]))
            default:
                return jsonResponse(200, googleBody([], status: "ZERO_RESULTS"))
            }
        })
        let logger = quietLogger()
        let tiles = PlacesTileCache(cascade: fixture.cascade(), redis: redis, logger: logger)
        let proxy = PlacesProxyAnswerer(tiles: tiles)

        let all = try await proxy.answer(
            PlacesProxyCommand(lat: center.lat, lng: center.lng, radius: 500), deadline: .now + .seconds(9)
        ).get()
        #expect(all.status == "OK" && all.htmlAttributions == ["Google Places"])
        #expect(Set(all.results.map(\.placeId)) == ["p-sbux", "p-cmg", "p-jpm"])
        let sbux = try #require(all.results.first { $0.placeId == "p-sbux" })
        #expect(sbux.name == "Starbucks" && sbux.geometry.location == center && sbux.types.contains("cafe"))
        #expect(googleCalls.count == 18)
        let wire = String(decoding: try JSONEncoder().encode(all), as: UTF8.self)
        #expect(wire.contains("\"place_id\":\"p-sbux\"") && wire.contains("\"html_attributions\""))
        #expect(!wire.contains("test-google-key"))
        #expect(fixture.google.lastRequest?.query["key"] == "test-google-key")

        // Narrowed on the cached tile: no new upstream calls.
        let cafes = try await proxy.answer(
            PlacesProxyCommand(lat: center.lat, lng: center.lng, radius: 500, type: "cafe"),
            deadline: .now + .seconds(9)
        ).get()
        #expect(cafes.results.map(\.placeId) == ["p-sbux"])
        let chip = try await proxy.answer(
            PlacesProxyCommand(lat: center.lat, lng: center.lng, radius: 500, keyword: "CHIPOTLE"),
            deadline: .now + .seconds(9)
        ).get()
        #expect(chip.results.map(\.placeId) == ["p-cmg"])
        let none = try await proxy.answer(
            PlacesProxyCommand(lat: center.lat, lng: center.lng, radius: 500, type: "gym"), deadline: .now + .seconds(9)
        ).get()
        #expect(none.status == "ZERO_RESULTS" && none.results.isEmpty)
        // `/v1/nearby` over the same point reads the same tile.
        let nearby = NearbyAnswerer(
            tiles: tiles, join: fixture.join(redis: redis, db: db), captures: nil, logger: logger)
        let answer = await nearby.answer(
            NearbyCommand(lat: center.lat, lng: center.lng, radius: 500, limit: 25), deadline: .now + .seconds(9))
        #expect(answer.event.tileCacheHit)
        #expect(googleCalls.count == 18)

        await fixture.shutdown()
        await db.close()
        await redis.close()
    }

    @Test func openStreetMapAnswersCarryTheirAttributionAndAnExhaustedCascadeFails() async throws {
        let redis = try await Stack.redis()
        let center = randomCenter()
        let fixture = try NearbyFixture(
            overpass: [
                { _ in
                    jsonResponse(
                        200, overpassBody([(7, center, ["name": "CVS Pharmacy", "brand": "CVS", "shop": "chemist"])]))
                }
            ])
        let proxy = PlacesProxyAnswerer(
            tiles: PlacesTileCache(cascade: fixture.cascade(googleKey: nil), redis: redis, logger: quietLogger()))
        let osm = try await proxy.answer(
            PlacesProxyCommand(lat: center.lat, lng: center.lng, radius: 300, keyword: "cvs"),
            deadline: .now + .seconds(9)
        ).get()
        #expect(osm.results.map(\.placeId) == ["osm:node:7"])
        #expect(osm.htmlAttributions == [PlacesSource.overpass.attribution])

        let failing = try NearbyFixture()
        let dead = PlacesProxyAnswerer(
            tiles: PlacesTileCache(cascade: failing.cascade(), redis: redis, logger: quietLogger()))
        let elsewhere = randomCenter()
        let failure = await dead.answer(
            PlacesProxyCommand(lat: elsewhere.lat, lng: elsewhere.lng, radius: 500), deadline: .now + .seconds(9))
        guard case .failure(let failed) = failure else {
            Issue.record("an exhausted cascade answered \(failure)")
            return
        }
        #expect(failed.message.hasPrefix("places lookup failed: google: http 500; overpass: http 500; photon: "))

        await fixture.shutdown()
        await failing.shutdown()
        await redis.close()
    }
}
