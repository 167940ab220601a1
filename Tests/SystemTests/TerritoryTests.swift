import Contracts
import Foundation
import Geo
import HTTPClient
import HTTPServer
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// `GET /v1/territory` through the whole system: Nearby's cascade (a loopback Overpass) run from the tile's
    /// centre, joined with Identify's journal: completion, pioneer and the tile's co-op finders this cycle.
    @Suite struct TerritoryTests {
        static func territory(_ gateway: GatewayProcess, _ token: String, lat: Double, lng: Double) async throws
            -> TerritoryResponse
        {
            let response = try await SystemClient.send(
                gateway, "GET", "/v1/territory?lat=\(lat)&lng=\(lng)", headers: [("Authorization", "Bearer \(token)")])
            #expect(response.status == 200, "\(SystemClient.text(response))")
            #expect(response.headers["Cache-Control"] == "private, max-age=60")
            return try JSONDecoder().decode(TerritoryResponse.self, from: Data(response.body))
        }

        @Test func completionPioneerAndCoopFromTheJournal() async throws {
            // A point off a tile's centre: the cascade is asked from the centre, where the fake's places are.
            let point = LatLng(lat: Double.random(in: 33...44), lng: Double.random(in: -118 ... -80))
            let tile = try #require(Geohash.encode(lat: point.lat, lng: point.lng, precision: 6))
            let center = try #require(Geohash.center(tile))
            let failing = NearbyRatingRoutesTests.Switch()
            let overpass = try NearbyRatingRoutesTests.overpass(
                at: LatLng(lat: center.lat, lng: center.lng), failing: failing)
            let photon = try FakeUpstream { _ in .error(500, "down") }
            let upstreams = [
                "OVERPASS_URLS": overpass.baseURL + "/api/interpreter", "PHOTON_BASE_URL": photon.baseURL,
                "GOOGLE_MAPS_API_KEY": "", "EXA_API_KEY": "", "OPENROUTER_API_KEY": "", "MASSIVE_API_KEY": "",
            ]
            let nearby = try await ServiceProcess.start("Nearby", extra: upstreams)
            let identify = try await ServiceProcess.start("Identify", extra: upstreams)
            let gateway = try await GatewayProcess.start(instance: "test-territory-\(UInt16.random(in: 0...9999))")
            defer {
                [nearby, identify].forEach { $0.kill() }
                gateway.process.kill()
            }
            let query = "/v1/territory?lat=\(point.lat)&lng=\(point.lng)"
            #expect(try await SystemClient.send(gateway, "GET", query).status == 401)
            let (first, _) = try await SystemClient.signIn(gateway)
            let (second, _) = try await SystemClient.signIn(gateway)
            let auth = [("Authorization", "Bearer \(first)")]
            try await SystemClient.waitForIdentify(gateway, auth: auth)
            for bad in ["/v1/territory", "/v1/territory?lat=91&lng=0", "/v1/territory?lat=abc&lng=1"] {
                let response = try await SystemClient.send(gateway, "GET", bad, headers: auth)
                #expect(response.status == 400 && SystemClient.errorMessage(response) == "lat/lng required")
            }

            // Nothing caught yet: Starbucks and Chipotle are the tile's investables (the library is not one).
            let fresh = try await Self.territory(gateway, first, lat: point.lat, lng: point.lng)
            #expect(fresh.tile == tile)
            #expect(fresh.investablesTotal == 2 && fresh.found == 0 && fresh.pioneer)
            #expect(fresh.coop == TerritoryCoop(contributors: 0, threshold: 5, uncovered: false))
            #expect(!fresh.sources.isEmpty && fresh.sources.count <= 8)

            // A Starbucks caught elsewhere counts for the tile; the tile stays unpioneered.
            try await ProgressTests.replay(
                gateway, auth, [#"{"brand":"Starbucks","ticker":"SBUX","confidence":"high","lat":1.5,"lng":1.5}"#])
            let elsewhere = try await Self.territory(gateway, first, lat: point.lat, lng: point.lng)
            #expect(elsewhere.found == 1 && elsewhere.pioneer && elsewhere.coop.contributors == 0)

            // A Chipotle caught in the tile: both found, pioneered, one co-op finder; the second finder makes two.
            try await ProgressTests.replay(
                gateway, auth,
                [#"{"brand":"Chipotle","ticker":"CMG","confidence":"high","lat":\#(point.lat),"lng":\#(point.lng)}"#])
            let caught = try await Self.territory(gateway, first, lat: center.lat, lng: center.lng)
            #expect(caught.investablesTotal == 2 && caught.found == 2 && !caught.pioneer)
            #expect(caught.coop.contributors == 1 && !caught.coop.uncovered)
            try await ProgressTests.replay(
                gateway, [("Authorization", "Bearer \(second)")],
                [#"{"brand":"Nike","ticker":"NKE","confidence":"high","lat":\#(center.lat),"lng":\#(center.lng)}"#])
            let theirs = try await Self.territory(gateway, second, lat: point.lat, lng: point.lng)
            #expect(theirs.found == 0 && !theirs.pioneer && theirs.coop.contributors == 2)

            // Every places source failing on a cold tile: the cascade's 502, as `/v1/nearby` answers it.
            failing.set(true)
            let cold = try await SystemClient.send(
                gateway, "GET", "/v1/territory?lat=\(point.lat + 0.3)&lng=\(point.lng)", headers: auth)
            #expect(cold.status == 502)
            #expect(SystemClient.errorMessage(cold) == "places lookup failed: overpass: http 503; photon: http 500")
        }
    }
}
