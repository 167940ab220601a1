import Contracts
import Foundation
import HTTPClient
import HTTPServer
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// `GET /v1/proxy/places` through the whole system (HTTP → Gateway → Kafka → Nearby → HTTP) with the
    /// Overpass and Photon fakes the nearby route tests use: only a maps token is accepted.
    @Suite struct PlacesProxyRouteTests {
        @Test func refusesASessionTokenAndAnswersAMapsToken() async throws {
            let center = LatLng(lat: Double.random(in: 33...44), lng: Double.random(in: -118 ... -80))
            let overpass = try NearbyRatingRoutesTests.overpass(at: center, failing: NearbyRatingRoutesTests.Switch())
            let photon = try FakeUpstream { _ in .error(500, "down") }
            let nearby = try await ServiceProcess.start(
                "Nearby",
                extra: [
                    "OVERPASS_URLS": overpass.baseURL + "/api/interpreter", "PHOTON_BASE_URL": photon.baseURL,
                    "GOOGLE_MAPS_API_KEY": "", "EXA_API_KEY": "", "OPENROUTER_API_KEY": "", "MASSIVE_API_KEY": "",
                ])
            let gateway = try await GatewayProcess.start(instance: "test-proxy-\(UInt16.random(in: 0...9999))")
            defer {
                nearby.kill()
                gateway.process.kill()
            }
            let session = try await FindsTests.signIn(gateway)
            let issued = try await SystemClient.send(
                gateway, "POST", "/v1/session/maps-token", headers: [("Authorization", "Bearer \(session)")])
            #expect(issued.status == 200)
            let maps = try #require(SystemClient.json(issued)["token"] as? String)
            let query = "/v1/proxy/places?location=\(center.lat),\(center.lng)&radius=400"

            // Refused: no bearer, a session token, a forged token.
            let anonymous = try await SystemClient.send(gateway, "GET", query)
            #expect(anonymous.status == 401 && SystemClient.errorMessage(anonymous) == "missing maps token")
            let withSession = try await SystemClient.send(
                gateway, "GET", query, headers: [("Authorization", "Bearer \(session)")])
            #expect(withSession.status == 401 && SystemClient.errorMessage(withSession) == "wrong token purpose")
            let forged = try await SystemClient.send(
                gateway, "GET", query, headers: [("Authorization", "Bearer a.b.c")])
            #expect(forged.status == 401 && SystemClient.errorMessage(forged) == "invalid maps token")
            // And the maps token is no session.
            let me = try await SystemClient.send(
                gateway, "GET", "/v1/auth/me", headers: [("Authorization", "Bearer \(maps)")])
            #expect(me.status == 401)

            // Validation, with a maps token.
            let auth = [("Authorization", "Bearer \(maps)")]
            for path in [
                "/v1/proxy/places", "/v1/proxy/places?location=abc", "/v1/proxy/places?location=91,1",
                "/v1/proxy/places?location=1e3,2", "/v1/proxy/places?location=40.1,-74.2,1",
            ] {
                let response = try await SystemClient.send(gateway, "GET", path, headers: auth)
                #expect(
                    response.status == 400 && SystemClient.errorMessage(response) == "location=lat,lng required",
                    "\(path)")
            }
            for radius in ["0", "-5", "50001", "abc", "1e400"] {
                let response = try await SystemClient.send(
                    gateway, "GET", "/v1/proxy/places?location=\(center.lat),\(center.lng)&radius=\(radius)",
                    headers: auth)
                #expect(
                    response.status == 400
                        && SystemClient.errorMessage(response) == "radius must be a positive number <= 50000")
            }
            let badType = try await SystemClient.send(gateway, "GET", query + "&type=Cafe%3B", headers: auth)
            #expect(badType.status == 400)

            // Accepted: Google's shape from the nearby cascade (OpenStreetMap here), the library filtered out.
            let answered = try await SystemClient.send(gateway, "GET", query, headers: auth)
            #expect(answered.status == 200)
            let body = try JSONDecoder().decode(PlacesProxyResponse.self, from: Data(answered.body))
            #expect(body.status == "OK" && body.results.map(\.name) == ["Starbucks", "Chipotle"])
            #expect(body.results.first?.placeId == "osm:node:101")
            #expect(body.htmlAttributions == ["© OpenStreetMap contributors (Overpass API)"])
            let calls = overpass.requestCount
            let cafes = try await SystemClient.send(gateway, "GET", query + "&type=cafe&keyword=star", headers: auth)
            #expect(
                try JSONDecoder().decode(PlacesProxyResponse.self, from: Data(cafes.body)).results.map(\.name) == [
                    "Starbucks"
                ])
            // The same tile serves `/v1/nearby`: no new upstream call.
            let page = try await SystemClient.send(
                gateway, "GET", "/v1/nearby?lat=\(center.lat)&lng=\(center.lng)&radius=400")
            #expect(page.status == 200)
            #expect(overpass.requestCount == calls)
        }
    }
}
