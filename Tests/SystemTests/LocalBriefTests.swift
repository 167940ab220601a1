import Contracts
import Foundation
import HTTPClient
import HTTPServer
import Synchronization
import TestSupport
import Testing

extension SystemTests {
    /// The Local Economy Brief through Gateway → Kafka → two Briefs replicas (CONTRACT.md §j.2): no geocode when
    /// the place is given, one geocode then its cache when it is not, the shared 24 h brief cache, the outage
    /// brief (200, not cached), 400 for bad coordinates, no push from the request path; and saved briefs.
    @Suite struct LocalBriefTests {
        static func brief(_ gateway: GatewayProcess, _ auth: [(String, String)], _ json: String) async throws
            -> (status: Int, brief: LocalBrief?, keys: Set<String>, text: String)
        {
            let response = try await SystemClient.send(gateway, "POST", "/v1/local-brief", json: json, headers: auth)
            return (
                response.status, try? JSONDecoder().decode(LocalBrief.self, from: Data(response.body)),
                Set(SystemClient.json(response).keys), String(decoding: response.body, as: UTF8.self)
            )
        }

        @Test func geocodeCacheOutageAndNoPush() async throws {
            let knobs = LocalBriefFakes.Knobs()
            let fakes = try LocalBriefFakes.upstreams(knobs)
            let first = try await ServiceProcess.start("Briefs", extra: fakes.env)
            let second = try await ServiceProcess.start("Briefs", extra: fakes.env)
            let gateway = try await GatewayProcess.start(instance: "test-local-\(UInt16.random(in: 0...9999))")
            defer {
                first.kill()
                second.kill()
                gateway.process.kill()
            }
            let (auth, userId) = try await BriefsFakes.signIn(gateway)
            let pushes = try BriefsFakes.PushCollector { $0 == userId }
            try await BriefsFakes.waitForBriefs(gateway, auth: auth)
            // Random points, so a rerun against the same Redis starts cold.
            let lat = Double(Int.random(in: 10_000...60_000)) / 1000
            let (a, b, c) = ("\(lat),\"lng\":-122.421", "\(lat + 0.01),\"lng\":-122.421", "\(lat + 0.02),\"lng\":-122.421")

            for bad in [#"{}"#, #"{"lat":"x","lng":1}"#, #"{"lat":91,"lng":1}"#, #"{"lat":1e400,"lng":1}"#, "not json"] {
                let rejected = try await Self.brief(gateway, auth, bad)
                #expect(rejected.status == 400 && rejected.text == #"{"error":"lat/lng required"}"#)
            }
            #expect(try await SystemClient.send(gateway, "POST", "/v1/local-brief", json: "{\"lat\":\(a)}").status == 401)

            // Given place: no geocode; the paragraphs cleaned, the brands from the cascade, opus first, no model named.
            let given = try await Self.brief(
                gateway, auth, "{\"lat\":\(a),\"neighborhood\":\"Mission\",\"city\":\"SF\",\"state\":\"CA\"}")
            #expect(given.status == 200 && given.keys == ["paragraphs", "place", "nearbyCount", "generatedAt"])
            #expect(given.brief?.paragraphs.count == 4 && given.brief?.paragraphs.first?.hasPrefix("Mission Dolores mixes") == true)
            #expect(given.brief?.place == LocalBriefPlace(neighborhood: "Mission", city: "SF", state: "CA") && given.brief?.nearbyCount == 2)
            #expect(fakes.nominatim.requests.isEmpty && fakes.openRouter.requests.count == 1)
            let prompt = try #require(fakes.openRouter.requests.first?.bodyText)
            #expect(prompt.contains("claude-opus-4.8") && prompt.contains("Starbucks (cafe) $SBUX"))
            #expect(!["opus", "claude", "anthropic", "openai", "gpt", "grok"].contains { given.text.lowercased().contains($0) })

            // Missing place: one geocode with the contract's fields and User-Agent; the second ask is both caches.
            let geocoded = try await Self.brief(gateway, auth, "{\"lat\":\(b)}")
            #expect(geocoded.status == 200 && geocoded.brief?.place
                == LocalBriefPlace(neighborhood: "Mission Dolores", city: "San Francisco", state: "California", zip: "94110"))
            #expect(fakes.nominatim.requests.count == 1 && fakes.openRouter.requests.count == 2)
            let asked = try #require(fakes.nominatim.requests.first)
            #expect(asked.path == "/reverse" && asked.query["zoom"] == "16" && asked.query["format"] == "json")
            #expect(asked.headers["user-agent"] == "mapvest/0.1 (support@mapvest.app)")
            for _ in 0..<3 {
                #expect(try await Self.brief(gateway, auth, "{\"lat\":\(b)}").brief == geocoded.brief)
            }
            #expect(fakes.nominatim.requests.count == 1 && fakes.openRouter.requests.count == 2)
            // With the first replica gone, the second serves the same cached brief.
            _ = await first.stop()
            try await BriefsFakes.waitForBriefs(gateway, auth: auth)
            #expect(try await Self.brief(gateway, auth, "{\"lat\":\(b)}").brief == geocoded.brief)
            #expect(fakes.nominatim.requests.count == 1 && fakes.openRouter.requests.count == 2)

            // Every model failing: 200, three outage paragraphs, same shape, not cached.
            knobs.modelFails.withLock { $0 = true }
            let outage = try await Self.brief(gateway, auth, "{\"lat\":\(c),\"city\":\"Oakland\",\"neighborhood\":\"Uptown\",\"state\":\"CA\"}")
            #expect(outage.status == 200 && outage.keys == ["paragraphs", "place", "nearbyCount", "generatedAt"])
            #expect(outage.brief?.paragraphs.count == 3 && outage.brief?.paragraphs.first?.contains("Uptown") == true)
            knobs.modelFails.withLock { $0 = false }
            let calls = fakes.openRouter.requests.count
            let recovered = try await Self.brief(gateway, auth, "{\"lat\":\(c),\"city\":\"Oakland\",\"neighborhood\":\"Uptown\",\"state\":\"CA\"}")
            #expect(recovered.brief?.paragraphs.count == 4 && fakes.openRouter.requests.count == calls + 1)

            // The request path never pushes.
            try await Task.sleep(for: .seconds(1))
            #expect(pushes.all.isEmpty)
            await pushes.stop()
        }

        @Test func savedBriefsValidationAndIsolation() async throws {
            let fakes = try LocalBriefFakes.upstreams(LocalBriefFakes.Knobs())
            let briefs = try await ServiceProcess.start("Briefs", extra: fakes.env)
            let gateway = try await GatewayProcess.start(instance: "test-saved-\(UInt16.random(in: 0...9999))")
            defer {
                briefs.kill()
                gateway.process.kill()
            }
            let (auth, _) = try await BriefsFakes.signIn(gateway)
            let (other, _) = try await BriefsFakes.signIn(gateway)
            try await BriefsFakes.waitForBriefs(gateway, auth: auth)
            let text = "Mission Dolores mixes cafés and chains."

            for (body, message) in [
                (#"{"lat":1,"lng":2,"brief":"\#(text)"}"#, "label required"),
                (#"{"label":"  ","lat":1,"lng":2,"brief":"\#(text)"}"#, "label required"),
                (#"{"label":"Home","lat":1,"lng":2,"brief":"too short"}"#, "brief text required (min 20 chars)"),
                (#"{"label":"Home","lng":2,"brief":"\#(text)"}"#, "lat/lng required"),
                ("[]", "label required"),
            ] {
                let response = try await SystemClient.send(gateway, "POST", "/v1/local-brief/save", json: body, headers: auth)
                #expect(response.status == 400 && SystemClient.errorMessage(response) == message)
            }

            let saved = try await SystemClient.send(
                gateway, "POST", "/v1/local-brief/save",
                json: #"{"label":"Home","lat":37.76,"lng":-122.42,"brief":"\#(text)","place":{"city":"San Francisco","state":"CA","zip":"94110"}}"#,
                headers: auth)
            #expect(saved.status == 200)
            let id = try #require(SystemClient.json(saved)["id"] as? String)

            let listed = try await SystemClient.send(gateway, "GET", "/v1/local-brief/saved", headers: auth)
            let items = try JSONDecoder().decode(SavedLocalBriefsResponse.self, from: Data(listed.body)).items
            #expect(items.count == 1 && items.first?.id == id && items.first?.label == "Home" && items.first?.brief == text)
            #expect(items.first?.city == "San Francisco" && items.first?.zip == "94110" && items.first?.lat == 37.76)

            // Another user sees nothing and cannot delete it; unknown and malformed ids are 404 too.
            let theirs = try await SystemClient.send(gateway, "GET", "/v1/local-brief/saved", headers: other)
            #expect(theirs.status == 200 && (SystemClient.json(theirs)["items"] as? [Any])?.isEmpty == true)
            for (path, who) in [(id, other), ("lb_unknown", auth), ("bad%20id", auth)] {
                let refused = try await SystemClient.send(gateway, "DELETE", "/v1/local-brief/saved/\(path)", headers: who)
                #expect(refused.status == 404 && SystemClient.errorMessage(refused) == "saved brief not found")
            }
            #expect(try await SystemClient.send(gateway, "DELETE", "/v1/local-brief/saved/\(id)", headers: auth).status == 204)
            let after = try await SystemClient.send(gateway, "GET", "/v1/local-brief/saved", headers: auth)
            #expect((SystemClient.json(after)["items"] as? [Any])?.isEmpty == true)
        }
    }
}
