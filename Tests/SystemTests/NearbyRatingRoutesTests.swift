import Contracts
import Foundation
import HTTPClient
import HTTPServer
import Kafka
import Runtime
import Synchronization
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// `/v1/nearby`, `/v1/rating/:ticker`, `/v1/news` and `/v1/search/intent` through the whole system:
    /// HTTP → Gateway → Kafka → Nearby / Rating (+ Identify for the finds that feed Nearby's read model) → HTTP,
    /// with loopback fakes for Overpass, Photon, Yahoo, Jev and the Underlying service.
    @Suite struct NearbyRatingRoutesTests {
        final class Switch: Sendable {
            private let on = Mutex(false)
            var isOn: Bool { on.withLock { $0 } }
            func set(_ value: Bool) { on.withLock { $0 = value } }
        }

        static func overpass(at center: LatLng, failing: Switch) throws -> FakeUpstream {
            try FakeUpstream { _ in
                if failing.isOn { return .error(503, "busy") }
                let body = """
                    {"elements":[
                    {"type":"node","id":101,"lat":\(center.lat),"lon":\(center.lng),"tags":{"name":"Starbucks","brand":"Starbucks","amenity":"cafe"}},
                    {"type":"node","id":102,"lat":\(center.lat + 0.0004),"lon":\(center.lng),"tags":{"name":"Chipotle","amenity":"fast_food"}},
                    {"type":"node","id":103,"lat":\(center.lat),"lon":\(center.lng + 0.0004),"tags":{"name":"City Library","amenity":"library"}}
                    ]}
                    """
                return .json(200, raw: Array(body.utf8))
            }
        }

        static func yahoo() throws -> FakeUpstream {
            try FakeUpstream { request in
                let symbol = request.path.split(separator: "/").last.map(String.init) ?? "X"
                guard symbol != "NOPE" else { return .error(404, "no such symbol") }
                let closes = (0..<60).map { String(200 + $0) }.joined(separator: ",")
                let stamps = (0..<60).map { String(1_780_000_000 + $0 * 86_400) }.joined(separator: ",")
                let body = """
                    {"chart":{"result":[{"meta":{"symbol":"\(symbol)","currency":"USD","regularMarketPrice":260,\
                    "chartPreviousClose":255,"regularMarketTime":1785000000},"timestamp":[\(stamps)],\
                    "indicators":{"quote":[{"close":[\(closes)]}]}}]}}
                    """
                return .json(200, raw: Array(body.utf8))
            }
        }

        static func jev() throws -> FakeUpstream {
            try FakeUpstream { request in
                let questions = (SystemClient.jsonObject(request.body)["questions"] as? [String: Any]) ?? [:]
                var answers: [String: Any] = [:]
                for id in questions.keys {
                    switch id {
                    case "rating":
                        answers[id] = [
                            "type": "score", "score": 3, "probabilities": ["hold": 0.3, "buy": 0.6, "sell": 0.1],
                            "confidence": 0.7,
                        ]
                    case "primary_driver":
                        answers[id] = [
                            "type": "choice", "choice": "momentum", "probabilities": ["momentum": 0.8],
                            "confidence": 0.8,
                        ]
                    default:
                        answers[id] = ["type": "noul", "noul": 0.8]
                    }
                }
                let body =
                    (try? JSONSerialization.data(withJSONObject: ["model": "jev-latest", "answers": answers])) ?? Data()
                return .json(200, raw: Array(body))
            }
        }

        static func randomTicker() -> String {
            "Q" + String((0..<4).map { _ in "ABCDEFGHIJKLMNOPRSTUVWXYZ".randomElement() ?? "A" })
        }

        @Test func routesValidateAnswerAndCarryCacheControl() async throws {
            let rated = Self.randomTicker()
            let thinTicker = Self.randomTicker()
            let center = LatLng(lat: Double.random(in: 33...44), lng: Double.random(in: -118 ... -80))
            let failing = Switch()
            let overpass = try Self.overpass(at: center, failing: failing)
            let photon = try FakeUpstream { _ in .error(500, "down") }
            let yahoo = try Self.yahoo()
            let jev = try Self.jev()
            let underlying = try FakeUpstream { request in
                guard request.path == "/api/prism/\(rated)/summary" else { return .error(404, "not stored") }
                return .json(
                    200,
                    raw: Array(
                        #"{"ticker":"X","recommendation":{"action":"buy","strength":"normal","conviction":0.6,"one_line":"Buy"}}"#
                            .utf8))
            }
            let upstreams = [
                "OVERPASS_URLS": overpass.baseURL + "/api/interpreter", "PHOTON_BASE_URL": photon.baseURL,
                "GOOGLE_MAPS_API_KEY": "", "EXA_API_KEY": "", "OPENROUTER_API_KEY": "", "MASSIVE_API_KEY": "",
                "MARKET_DATA_PRIMARY": "yahoo", "YAHOO_BASE_URL": yahoo.baseURL, "JEV_API_KEY": "test-jev",
                "JEV_BASE_URL": jev.baseURL, "UNDERLYING_URL": underlying.baseURL,
            ]
            let nearby = try await ServiceProcess.start("Nearby", extra: upstreams)
            let rating = try await ServiceProcess.start("Rating", extra: upstreams)
            let identify = try await ServiceProcess.start("Identify", extra: upstreams)
            let gateway = try await GatewayProcess.start(instance: "test-nearby-\(UInt16.random(in: 0...9999))")
            defer {
                [nearby, rating, identify].forEach { $0.kill() }
                gateway.process.kill()
            }

            // The contract's 400s, answered by the gateway.
            for path in ["/v1/nearby", "/v1/nearby?lat=abc&lng=1", "/v1/nearby?lat=91&lng=1", "/v1/nearby?lat=1"] {
                let response = try await SystemClient.send(gateway, "GET", path)
                #expect(response.status == 400 && SystemClient.errorMessage(response) == "lat/lng required")
            }
            for path in ["/v1/rating/$MCD", "/v1/rating/TOOLONGX", "/v1/rating/1AB"] {
                let response = try await SystemClient.send(gateway, "GET", path)
                #expect(response.status == 400 && SystemClient.errorMessage(response) == "ticker required (e.g. MCD)")
            }
            let noTicker = try await SystemClient.send(gateway, "GET", "/v1/news?limit=3")
            #expect(noTicker.status == 400 && SystemClient.errorMessage(noTicker) == "ticker required")
            for body in [
                "{}", "{\"q\":\"   \"}", "{\"q\":\"\(String(repeating: "x", count: 201))\"}", "not json", "{\"q\":5}",
            ] {
                let response = try await SystemClient.send(gateway, "POST", "/v1/search/intent", json: body)
                #expect(response.status == 400 && SystemClient.errorMessage(response) == "q required (1-200 chars)")
            }

            // Nearby, anonymous: public caching, OpenStreetMap named in the sources, no state.
            let query = "/v1/nearby?lat=\(center.lat)&lng=\(center.lng)&radius=400"
            let anonymous = try await SystemClient.send(gateway, "GET", query)
            #expect(anonymous.status == 200)
            #expect(anonymous.headers["Cache-Control"] == "public, max-age=60, stale-while-revalidate=300")
            let page = try JSONDecoder().decode(NearbyResponse.self, from: Data(anonymous.body))
            #expect(page.items.map(\.place.name) == ["Starbucks", "Chipotle"])
            #expect(page.items.map { $0.investable?.brand.ticker?.symbol } == ["SBUX", "CMG"])
            #expect(page.items.allSatisfy { $0.state == nil })
            #expect(page.sources?.first?.provider == "overpass")

            // Signed in: a Starbucks find recorded here (through Identify's journal and its event) shows as captured.
            let token = try await FindsTests.signIn(gateway)
            let auth = [("Authorization", "Bearer \(token)")]
            try await SystemClient.waitForIdentify(gateway, auth: auth)
            let journal = """
                {"finds":[{"brand":"Starbucks","ticker":"SBUX","isPublic":true,"confidence":"high","lat":\(center.lat),"lng":\(center.lng)}]}
                """
            #expect(
                try await SystemClient.send(gateway, "POST", "/v1/finds", json: journal, headers: auth).status == 200)
            var states: [String: NearbyState?] = [:]
            for _ in 0..<100 {
                let signedIn = try await SystemClient.send(gateway, "GET", query, headers: auth)
                #expect(signedIn.headers["Cache-Control"] == "private, max-age=60")
                let items = try JSONDecoder().decode(NearbyResponse.self, from: Data(signedIn.body)).items
                states = Dictionary(uniqueKeysWithValues: items.map { ($0.place.name, $0.state) })
                if states["Starbucks"] == .captured { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(states["Starbucks"] == .captured && states["Chipotle"] == .seen)

            // Every OpenStreetMap source failing on a cold tile: 502 naming what failed.
            failing.set(true)
            let elsewhere = "/v1/nearby?lat=\(center.lat + 0.2)&lng=\(center.lng)"
            let failed = try await SystemClient.send(gateway, "GET", elsewhere)
            #expect(failed.status == 502)
            #expect(SystemClient.errorMessage(failed) == "places lookup failed: overpass: http 503; photon: http 500")
            // The warm tile still answers.
            #expect(try await SystemClient.send(gateway, "GET", query).status == 200)

            // Rating: the quote and the stored Prism summary are enough for one Jev call.
            let ratedResponse = try await SystemClient.send(gateway, "GET", "/v1/rating/%20\(rated.lowercased())%20")
            #expect(ratedResponse.status == 200)
            #expect(ratedResponse.headers["Cache-Control"] == "public, max-age=300, stale-while-revalidate=900")
            let ratingBody = try JSONDecoder().decode(RatingResponse.self, from: Data(ratedResponse.body))
            #expect(
                ratingBody.ticker == rated
                    && ratingBody.disclaimer == "AI-generated research signal, not investment advice.")
            #expect(ratingBody.status == .ok && ratingBody.inputsUsed == ["quote", "prism"])
            #expect(
                ratingBody.rating
                    == Rating(
                        action: .buy, strength: .strong, conviction: 0.7, oneLine: "Buy · momentum + fundamentals"))
            // A ticker with one source (nothing stored upstream) is insufficient, with a null rating.
            let thin = try await SystemClient.send(gateway, "GET", "/v1/rating/\(thinTicker)")
            #expect(thin.status == 200 && SystemClient.text(thin).contains("\"rating\":null"))
            #expect(try JSONDecoder().decode(RatingResponse.self, from: Data(thin.body)).status == .insufficientSignal)

            // Search intent and news.
            let intent = try await SystemClient.send(gateway, "POST", "/v1/search/intent", json: "{\"q\":\"  $aapl \"}")
            #expect(intent.status == 200)
            let intentBody = try JSONDecoder().decode(SearchIntentResponse.self, from: Data(intent.body))
            #expect(
                intentBody.intent == .ticker && intentBody.probability == 0.97 && intentBody.resolved.symbol == "AAPL")
            let probed = try await SystemClient.send(gateway, "POST", "/v1/search/intent", json: "{\"q\":\"mcd\"}")
            #expect(try JSONDecoder().decode(SearchIntentResponse.self, from: Data(probed.body)).probability == 0.95)
            let news = try await SystemClient.send(gateway, "GET", "/v1/news?ticker=mcd&materiality=MATERIAL")
            #expect(
                news.status == 200 && news.headers["Cache-Control"] == "public, max-age=60, stale-while-revalidate=300")
            let newsBody = try JSONDecoder().decode(NewsResponse.self, from: Data(news.body))
            #expect(newsBody.items.isEmpty && newsBody.provider == "error" && newsBody.materiality == .material)

            // Both services published their events on the events topic.
            let seen = Mutex<Set<String>>([])
            let consumer = try KafkaGroupConsumer.make(
                configuration: KafkaConfiguration.fromEnvironment(Environment()),
                groupId: "test-events-\(UInt32.random(in: 0...UInt32.max))", topics: [Topics.events],
                logger: Logger(label: "events", level: .error))
            consumer.setHandler(maxInFlight: 16) { message in
                let event = SystemClient.jsonObject(message.value)
                guard let type = event["type"] as? String, let data = event["data"] as? [String: Any] else { return }
                if type == NearbyServedEvent.type, (data["tile"] as? String)?.hasSuffix(":400") == true,
                    data["source"] as? String == "overpass"
                {
                    seen.withLock { _ = $0.insert("nearby") }
                }
                if type == RatingComputedEvent.type, data["ticker"] as? String == rated,
                    data["status"] as? String == "ok"
                {
                    seen.withLock { _ = $0.insert("rating") }
                }
            }
            let consuming = Task { try await consumer.run() }
            for _ in 0..<200 where seen.withLock({ $0.count }) < 2 { try await Task.sleep(for: .milliseconds(100)) }
            #expect(seen.withLock { $0 } == ["nearby", "rating"])
            await consumer.shutdown()
            try await consuming.value

            for fake in [overpass, photon, yahoo, jev, underlying] { await fake.shutdown() }
        }
    }
}
