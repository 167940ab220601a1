import Contracts
import Foundation
import HTTPClient
import HTTPServer
import Synchronization
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// The Local Economy Brief through Gateway → Kafka → two Briefs replicas (docs/COMPATIBILITY.md#local-brief): no
    /// geocode when the place is given, one geocode then its cache when it is not, the shared 24 h brief cache, the
    /// outage brief (200, not cached), 400 for bad coordinates, no push from the request path; and saved briefs.
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

        /// The user message of an OpenRouter chat request, decoded (the body escapes `/` and newlines).
        static func userPrompt(_ request: FakeUpstream.RecordedRequest) -> String {
            let body = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
            let messages = body?["messages"] as? [[String: Any]] ?? []
            return messages.filter { $0["role"] as? String == "user" }.compactMap { $0["content"] as? String }.joined(
                separator: "\n")
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
            let (a, b, c) = (
                "\(lat),\"lng\":-122.421", "\(lat + 0.01),\"lng\":-122.421", "\(lat + 0.02),\"lng\":-122.421"
            )

            for bad in [#"{}"#, #"{"lat":"x","lng":1}"#, #"{"lat":91,"lng":1}"#, #"{"lat":1e400,"lng":1}"#, "not json"]
            {
                let rejected = try await Self.brief(gateway, auth, bad)
                #expect(rejected.status == 400 && rejected.text == #"{"error":"lat/lng required"}"#)
            }
            #expect(
                try await SystemClient.send(gateway, "POST", "/v1/local-brief", json: "{\"lat\":\(a)}").status == 401)

            // Given place: no geocode; the paragraphs cleaned, the brands from the cascade, opus first, no model named.
            let given = try await Self.brief(
                gateway, auth, "{\"lat\":\(a),\"neighborhood\":\"Mission\",\"city\":\"SF\",\"state\":\"CA\"}")
            #expect(given.status == 200 && given.keys == ["paragraphs", "place", "nearbyCount", "generatedAt"])
            #expect(
                given.brief?.paragraphs.count == 4
                    && given.brief?.paragraphs.first?.hasPrefix("Mission Dolores mixes") == true)
            #expect(
                given.brief?.place == LocalBriefPlace(neighborhood: "Mission", city: "SF", state: "CA")
                    && given.brief?.nearbyCount == 2)
            #expect(fakes.nominatim.requests.isEmpty && fakes.openRouter.requests.count == 1)
            let prompt = try #require(fakes.openRouter.requests.first?.bodyText)
            #expect(prompt.contains("claude-opus-4.8") && prompt.contains("Starbucks (cafe) $SBUX"))
            #expect(
                !["opus", "claude", "anthropic", "openai", "gpt", "grok"].contains {
                    given.text.lowercased().contains($0)
                })

            // Missing place: one geocode with the contract's fields and User-Agent; the second ask is both caches.
            let geocoded = try await Self.brief(gateway, auth, "{\"lat\":\(b)}")
            #expect(
                geocoded.status == 200
                    && geocoded.brief?.place
                        == LocalBriefPlace(
                            neighborhood: "Mission Dolores", city: "San Francisco", state: "California", zip: "94110")
            )
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
            let outage = try await Self.brief(
                gateway, auth, "{\"lat\":\(c),\"city\":\"Oakland\",\"neighborhood\":\"Uptown\",\"state\":\"CA\"}")
            #expect(outage.status == 200 && outage.keys == ["paragraphs", "place", "nearbyCount", "generatedAt"])
            #expect(outage.brief?.paragraphs.count == 3 && outage.brief?.paragraphs.first?.contains("Uptown") == true)
            knobs.modelFails.withLock { $0 = false }
            let calls = fakes.openRouter.requests.count
            let recovered = try await Self.brief(
                gateway, auth, "{\"lat\":\(c),\"city\":\"Oakland\",\"neighborhood\":\"Uptown\",\"state\":\"CA\"}")
            #expect(recovered.brief?.paragraphs.count == 4 && fakes.openRouter.requests.count == calls + 1)

            // The request path never pushes.
            try await Task.sleep(for: .seconds(1))
            #expect(pushes.all.isEmpty)
            await pushes.stop()
        }

        /// With `EXA_API_KEY` set: five bucket searches on Exa's wire format (POST /search, the key in `x-api-key`,
        /// two results each) whose hits reach the model's prompt as sources; an Exa stalled past its 4 s cap costs
        /// the brief the sources, not its answer.
        @Test func exaFanOutWithAKeyAndItsFourSecondCap() async throws {
            let knobs = LocalBriefFakes.Knobs()
            let fakes = try LocalBriefFakes.upstreams(knobs)
            let briefs = try await ServiceProcess.start(
                "Briefs", extra: fakes.env.merging(["EXA_API_KEY": "test-exa"]) { $1 })
            let gateway = try await GatewayProcess.start(instance: "test-exa-\(UInt16.random(in: 0...9999))")
            defer {
                briefs.kill()
                gateway.process.kill()
            }
            let (auth, _) = try await BriefsFakes.signIn(gateway)
            try await BriefsFakes.waitForBriefs(gateway, auth: auth)
            let lat = Double(Int.random(in: 10_000...60_000)) / 1000
            let place = #","neighborhood":"Mission","city":"SF","state":"CA"}"#

            let answered = try await Self.brief(gateway, auth, "{\"lat\":\(lat),\"lng\":-122.421\(place)")
            #expect(answered.status == 200 && answered.brief?.paragraphs.count == 4)
            let searches = fakes.exa.requests
            #expect(searches.count == 5 && searches.allSatisfy { $0.method == "POST" && $0.path == "/search" })
            #expect(searches.allSatisfy { $0.headers["x-api-key"] == "test-exa" })
            let bodies = searches.compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.body)) as? [String: Any]
            }
            #expect(bodies.count == 5 && bodies.allSatisfy { $0["numResults"] as? Int == 2 })
            let queries = Set(bodies.compactMap { $0["query"] as? String })
            #expect(
                queries
                    == Set(
                        [
                            "local economy overview", "largest employers", "employment and jobs",
                            "city council economic development policy", "business regulation zoning permits",
                        ].map { "Mission, SF, CA \($0)" }))
            // Two hits per bucket, labelled, with their snippet and URL, in the one model call's prompt.
            let prompt = try #require(fakes.openRouter.requests.last.map(Self.userPrompt))
            #expect(
                prompt.contains(
                    "- [employers] Mission, SF, CA largest employers — report 1: Finding 1 about Mission, SF, CA largest employers. (https://news.example/1/"
                ))
            #expect(prompt.contains("[policy] Mission, SF, CA city council economic development policy — report 2"))
            #expect(!prompt.contains("report 3") && prompt.components(separatedBy: "- [").count - 1 == 10)

            // Exa stalls for 20 s: the fan-out gives up at 4 s and the brief is written without sources.
            knobs.exaDelay.withLock { $0 = .seconds(20) }
            let started = ContinuousClock.now
            let stalled = try await Self.brief(gateway, auth, "{\"lat\":\(lat + 0.01),\"lng\":-122.421\(place)")
            let elapsed = ContinuousClock.now - started
            #expect(stalled.status == 200 && stalled.brief?.paragraphs.count == 4)
            #expect(fakes.exa.requests.count == 10)
            #expect(elapsed >= .milliseconds(3900) && elapsed < .seconds(12), "answered after \(elapsed)")
            let unsourced = try #require(fakes.openRouter.requests.last.map(Self.userPrompt))
            #expect(unsourced.contains("Sources:\n(none)") && fakes.openRouter.requests.count == 2)
            knobs.exaDelay.withLock { $0 = .zero }
        }

        @Test func savedBriefsValidationAndIsolation() async throws {
            let fakes = try LocalBriefFakes.upstreams(LocalBriefFakes.Knobs())
            let session = try await BriefsRouteSession.start(instance: "test-saved", env: fakes.env)
            defer { session.stop() }
            let (gateway, auth, other) = (session.gateway, session.auth, session.other)
            let text = "Mission Dolores mixes cafés and chains."

            for (body, message) in [
                (#"{"lat":1,"lng":2,"brief":"\#(text)"}"#, "label required"),
                (#"{"label":"  ","lat":1,"lng":2,"brief":"\#(text)"}"#, "label required"),
                (#"{"label":"Home","lat":1,"lng":2,"brief":"too short"}"#, "brief text required (min 20 chars)"),
                (#"{"label":"Home","lng":2,"brief":"\#(text)"}"#, "lat/lng required"),
                ("[]", "label required"),
            ] {
                let response = try await SystemClient.send(
                    gateway, "POST", "/v1/local-brief/save", json: body, headers: auth)
                #expect(response.status == 400 && SystemClient.errorMessage(response) == message)
            }

            let saved = try await SystemClient.send(
                gateway, "POST", "/v1/local-brief/save",
                json:
                    #"{"label":"Home","lat":37.76,"lng":-122.42,"brief":"\#(text)","place":{"city":"San Francisco","state":"CA","zip":"94110"}}"#,
                headers: auth)
            #expect(saved.status == 200)
            let id = try #require(SystemClient.json(saved)["id"] as? String)

            let listed = try await SystemClient.send(gateway, "GET", "/v1/local-brief/saved", headers: auth)
            let items = try JSONDecoder().decode(SavedLocalBriefsResponse.self, from: Data(listed.body)).items
            #expect(
                items.count == 1 && items.first?.id == id && items.first?.label == "Home" && items.first?.brief == text)
            #expect(items.first?.city == "San Francisco" && items.first?.zip == "94110" && items.first?.lat == 37.76)

            // Another user sees nothing and cannot delete it; unknown and malformed ids are 404 too.
            let theirs = try await SystemClient.send(gateway, "GET", "/v1/local-brief/saved", headers: other)
            #expect(theirs.status == 200 && (SystemClient.json(theirs)["items"] as? [Any])?.isEmpty == true)
            for (path, who) in [(id, other), ("lb_unknown", auth), ("bad%20id", auth)] {
                let refused = try await SystemClient.send(
                    gateway, "DELETE", "/v1/local-brief/saved/\(path)", headers: who)
                #expect(refused.status == 404 && SystemClient.errorMessage(refused) == "saved brief not found")
            }
            #expect(
                try await SystemClient.send(gateway, "DELETE", "/v1/local-brief/saved/\(id)", headers: auth).status
                    == 204)
            let after = try await SystemClient.send(gateway, "GET", "/v1/local-brief/saved", headers: auth)
            #expect((SystemClient.json(after)["items"] as? [Any])?.isEmpty == true)
        }
    }
}
