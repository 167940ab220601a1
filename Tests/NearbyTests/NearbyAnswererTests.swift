import Contracts
import Finance
import Foundation
import Geo
import HTTPServer
import Kafka
import Messaging
import NearbyAdapters
import NearbyCore
import Places
import Postgres
import Redis
import Resolver
import Runtime
import TestSupport
import Testing
import UpstreamFakes

/// `GET /v1/nearby` end to end inside the service's library: real Redis (tiles, brand cache) and Postgres
/// (brand cache, captures read model), loopback fakes for every upstream.
@Suite(.serialized) struct NearbyAnswererTests {
    static func command(_ center: LatLng, radius: Double = 500, limit: Int = 25, userId: String? = nil) -> NearbyCommand
    {
        NearbyCommand(lat: center.lat, lng: center.lng, radius: radius, limit: limit, userId: userId)
    }

    @Test func coldTileFetchesWarmTileServesFromRedisAndTheJoinUsesTheSharedResolver() async throws {
        let redis = try await Stack.redis()
        let db = try await Stack.postgres()
        let center = randomCenter()
        let unknown = "Quokka Bistro \(UInt32.random(in: 0...UInt32.max))"
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
                        ("p-q", unknown, offset(center, northMetres: 50), ["restaurant", "food"]),
                        ("p-cmg", "Chipotle Mexican Grill", offset(center, northMetres: 80), ["restaurant", "food"]),
                    ]))
            case "store":
                return jsonResponse(
                    200,
                    googleBody([
                        ("p-church", "Grace Church", center, ["church", "place_of_worship"]),
                        ("p-tgt", "Target", offset(center, northMetres: 120), ["department_store", "store"]),
                    ]))
            default:
                return jsonResponse(200, googleBody([], status: "ZERO_RESULTS"))
            }
        })
        let answerer = fixture.answerer(redis: redis, db: db)

        let cold = await answerer.answer(Self.command(center), deadline: .now + .seconds(9))
        let response = try cold.result.get()
        #expect(!cold.event.tileCacheHit && cold.event.source == "google")
        let names = response.items.map(\.place.name)
        #expect(!names.contains("Grace Church"))
        #expect(Set(names) == ["Starbucks", "Chipotle Mexican Grill", "Target", unknown])
        // Chains the seed knows rank first; the unknown name last.
        #expect(names.last == unknown)
        let tickers = Dictionary(
            uniqueKeysWithValues: response.items.map { ($0.place.name, $0.investable?.brand.ticker?.symbol) })
        #expect(
            tickers["Starbucks"] == "SBUX" && tickers["Target"] == "TGT" && tickers["Chipotle Mexican Grill"] == "CMG")
        #expect(tickers[unknown] == .some(nil))
        let sbux = try #require(response.items.first { $0.place.name == "Starbucks" }?.investable)
        #expect(sbux.confidence == .high && sbux.comparables.isEmpty && sbux.etfs.isEmpty && sbux.quote == nil)
        #expect(sbux.sources.first?.provider == .manual)
        #expect(response.items.allSatisfy { $0.state == nil })
        #expect(
            response.sources == [
                NearbySource(
                    provider: "google", attribution: "Google Places",
                    fetchedAt: response.sources?.first?.fetchedAt ?? "")
            ])
        // Only the name the seed does not know went to the web, once.
        #expect(fixture.exa.requestCount == 1)
        #expect(fixture.exa.lastRequest?.bodyText.contains("Quokka Bistro") == true)
        #expect(googleCalls.count == 18)

        // A small pan inside the same tile reuses it.
        let panned = [offset(center, northMetres: 30), offset(center, northMetres: -30)].first {
            Geohash.encode(lat: $0.lat, lng: $0.lng) == Geohash.encode(lat: center.lat, lng: center.lng)
        }
        let warm = await answerer.answer(Self.command(try #require(panned)), deadline: .now + .seconds(9))
        #expect(warm.event.tileCacheHit)
        #expect(try warm.result.get().items.map(\.place.id) == response.items.map(\.place.id))
        #expect(googleCalls.count == 18)
        // The private answer for the unknown name is in the shared brand cache now.
        #expect(fixture.exa.requestCount == 1)
        let key = try #require(TileKey(center: center, radius: 500))
        let ttl = try await redis.command("PTTL", "mapvest:places:\(key)").integer ?? 0
        #expect(ttl > 11 * 3600 * 1000 && ttl <= 12 * 3600 * 1000)

        await fixture.shutdown()
        await db.close()
        await redis.close()
    }

    @Test func concurrentColdRequestsForOneTileShareOneFetch() async throws {
        let redis = try await Stack.redis()
        let center = randomCenter()
        let fixture = try NearbyFixture(
            overpass: [
                { _ in
                    try? await Task.sleep(for: .milliseconds(300))
                    return jsonResponse(
                        200, overpassBody([(5, center, ["name": "CVS Pharmacy", "brand": "CVS", "shop": "chemist"])]))
                }
            ])
        let answerer = fixture.answerer(redis: redis, db: nil, googleKey: nil)
        let answers = await withTaskGroup(of: NearbyAnswerer.Answer.self) { group in
            for _ in 0..<10 {
                group.addTask { await answerer.answer(Self.command(center), deadline: .now + .seconds(9)) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(fixture.overpass[0].requestCount == 1)
        #expect(answers.allSatisfy { (try? $0.result.get().items.first?.investable?.brand.ticker?.symbol) == "CVS" })
        let sources = try answers[0].result.get().sources ?? []
        #expect(sources.first?.provider == "overpass" && sources.first?.attribution.contains("OpenStreetMap") == true)
        await fixture.shutdown()
        await redis.close()
    }

    @Test func exhaustedCascadeIsA502MessageAndNothingIsCached() async throws {
        let redis = try await Stack.redis()
        let fixture = try NearbyFixture(
            google: { _ in jsonResponse(500, "{}") }, overpass: [{ _ in jsonResponse(502, "{}") }],
            photon: { _ in jsonResponse(200, "<<garbage>>") })
        let answerer = fixture.answerer(redis: redis, db: nil)
        let center = randomCenter()
        let answer = await answerer.answer(Self.command(center), deadline: .now + .seconds(9))
        guard case .failure(let failure) = answer.result else {
            Issue.record("expected a failure")
            return
        }
        #expect(
            failure.message == "places lookup failed: google: http 500; overpass: http 502; photon: invalid response")
        let key = try #require(TileKey(center: center, radius: 500))
        #expect(try await redis.get("mapvest:places:\(key)") == nil)
        await fixture.shutdown()
        await redis.close()
    }

    @Test func nobodyHavingPlacesIsAnEmptyAnswerNotAnError() async throws {
        let redis = try await Stack.redis()
        let fixture = try NearbyFixture(
            google: { _ in jsonResponse(200, googleBody([], status: "ZERO_RESULTS")) },
            overpass: [{ _ in jsonResponse(200, overpassBody([])) }], photon: { _ in jsonResponse(200, photonBody([])) }
        )
        let answer = await fixture.answerer(redis: redis, db: nil).answer(
            Self.command(randomCenter()), deadline: .now + .seconds(9))
        #expect(try answer.result.get().items.isEmpty)
        #expect(answer.event.source == "none")
        await fixture.shutdown()
        await redis.close()
    }

    @Test func signedInCallersGetSeenOrCapturedFromTheReadModel() async throws {
        let redis = try await Stack.redis()
        let db = try await Stack.postgres()
        let center = randomCenter()
        let far = offset(center, northMetres: 1500)
        let fixture = try NearbyFixture(
            overpass: [
                { _ in
                    jsonResponse(
                        200,
                        overpassBody([
                            (1, center, ["name": "Starbucks", "brand": "Starbucks", "amenity": "cafe"]),
                            (2, offset(center, northMetres: 40), ["name": "Dunkin'", "amenity": "cafe"]),
                            (3, far, ["name": "Corner Deli", "shop": "deli"]),
                        ]))
                }
            ])
        let store = CapturesStore(db: db)
        let user = TestEnvironment.uniqueName("user")
        let tile = try #require(Geohash.encode(lat: center.lat, lng: center.lng))
        let farTile = try #require(Geohash.encode(lat: far.lat, lng: far.lng))
        // A Starbucks captured in this tile (matched by ticker), the deli captured elsewhere (not this tile).
        try await store.record(
            FindRecordedEvent(
                findId: TestEnvironment.uniqueName("f"), userId: user, brand: "Starbucks Reserve", ticker: "SBUX",
                comparable: nil, isPublic: true, geohash6: tile, createdAt: Timestamp.iso8601(Date())))
        try await store.record(
            FindRecordedEvent(
                findId: TestEnvironment.uniqueName("f"), userId: user, brand: "Corner Deli", ticker: nil,
                comparable: nil,
                isPublic: false, geohash6: farTile == tile ? "zzzzzz" : farTile, createdAt: Timestamp.iso8601(Date())))
        let answerer = fixture.answerer(redis: redis, db: db, googleKey: nil)

        let signedIn = try await answerer.answer(
            Self.command(center, radius: 2000, userId: user), deadline: .now + .seconds(9)
        ).result.get()
        let states = Dictionary(uniqueKeysWithValues: signedIn.items.map { ($0.place.name, $0.state) })
        #expect(states["Starbucks"] == .captured)
        #expect(states["Dunkin'"] == .seen)
        #expect(states["Corner Deli"] == (farTile == tile ? .seen : .captured))

        let other = try await answerer.answer(
            Self.command(center, radius: 2000, userId: "someone-else"), deadline: .now + .seconds(9)
        ).result.get()
        #expect(other.items.allSatisfy { $0.state == .seen })
        let anonymous = try await answerer.answer(Self.command(center, radius: 2000), deadline: .now + .seconds(9))
            .result.get()
        #expect(anonymous.items.allSatisfy { $0.state == nil })
        // The wire shape: state only when signed in, no nulls.
        let json = String(decoding: try JSONEncoder().encode(anonymous), as: UTF8.self)
        #expect(!json.contains("null") && !json.contains("\"state\""))

        await fixture.shutdown()
        await db.close()
        await redis.close()
    }

    @Test func theJoinUsesWhatResolvedByTheDeadlineAndTheRestLandsInTheSharedCache() async throws {
        let redis = try await Stack.redis()
        let db = try await Stack.postgres()
        let tag = UInt32.random(in: 0...UInt32.max)
        let fast = "Wombat Tea \(tag)"
        let slow = "Sloth Diner \(tag)"
        let fixture = try NearbyFixture(exa: { request in
            if String(decoding: request.body, as: UTF8.self).contains("Sloth") {
                try? await Task.sleep(for: .seconds(2))
            }
            return jsonResponse(200, "{\"results\":[]}")
        })
        let join = fixture.join(redis: redis, db: db)
        let started = ContinuousClock.now
        let resolved = await join.resolve(["Starbucks", fast, slow, fast], deadline: .now + .milliseconds(700))
        #expect(ContinuousClock.now - started < .milliseconds(900))
        #expect(resolved["starbucks"]?.brand.ticker?.symbol == "SBUX")
        #expect(resolved[TickerResolver.key(fast)]?.brand.isPublic == false)
        #expect(resolved[TickerResolver.key(slow)] == nil)
        // One web lookup per unknown name, the seed never asked the web.
        #expect(fixture.exa.requestCount == 2)
        // The slow one finishes on its own and lands in the shared cache for the next request.
        let cache = BrandTickerCache(redis: redis, db: db, logger: quietLogger())
        var landed: BrandResolution?
        for _ in 0..<40 where landed == nil {
            try await Task.sleep(for: .milliseconds(100))
            landed = await cache.get(TickerResolver.key(slow))
        }
        #expect(landed?.brand.isPublic == false)
        await fixture.shutdown()
        await db.close()
        await redis.close()
    }

}

/// The read model's consumer: `find.recorded` CloudEvents on the events topic, in Nearby's own group.
@Suite(.serialized) struct CapturesConsumerTests {
    @Test func consumesFindRecordedEventsIdempotentlyAndSkipsOthers() async throws {
        let db = try await Stack.postgres()
        let configuration = KafkaConfiguration(
            brokers: try TestEnvironment.require("KAFKA_BROKERS"), isDevelopment: true)
        let topic = TestEnvironment.uniqueName("events")
        try await KafkaAdmin.ensureTopics(
            configuration: configuration, topics: [(name: topic, partitions: 2)], timeout: .seconds(15),
            logger: quietLogger())
        let store = CapturesStore(db: db)
        let consumer = try FindsRecordedConsumer(
            configuration: configuration, store: store, logger: quietLogger(), topic: topic,
            groupId: TestEnvironment.uniqueName("nearby-read-model"))
        let running = Task { try await consumer.run() }
        let producer = try KafkaProducer.make(configuration: configuration, logger: quietLogger())

        let user = TestEnvironment.uniqueName("user")
        let find = FindRecordedEvent(
            findId: TestEnvironment.uniqueName("find"), userId: user, brand: "Chipotle", ticker: "cmg", comparable: nil,
            isPublic: true, geohash6: "dr5ru6", createdAt: Timestamp.iso8601(Date()))
        let event = CloudEvent(
            id: "e1", source: "/mapvest/identify", type: FindRecordedEvent.type, time: Timestamp.iso8601(Date()),
            schemaVersion: 1, subject: nil, data: find)
        let other = CloudEvent(
            id: "e2", source: "/mapvest/identify", type: IdentifyCompletedEvent.type, time: Timestamp.iso8601(Date()),
            schemaVersion: 1, subject: nil,
            data: IdentifyCompletedEvent(
                path: "hint", modelUsed: "hint:seed", latencyMs: 1, detections: 1, investables: 1, publicInvestables: 1,
                signedIn: true))
        for value in [
            try JSONEncoder().encode(event), try JSONEncoder().encode(other), Data("not json".utf8),
            try JSONEncoder().encode(event),
        ] {
            _ = try await producer.send(topic: topic, key: Array(user.utf8), value: Array(value), headers: [])
        }

        var captures: [Capture] = []
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            captures = try await store.captures(userId: user, tiles: ["dr5ru6"])
            if !captures.isEmpty { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        try await Task.sleep(for: .milliseconds(500))
        captures = try await store.captures(userId: user, tiles: ["dr5ru6"])
        #expect(captures == [Capture(tile: "dr5ru6", brandKey: "chipotle", ticker: "CMG")])

        await consumer.shutdown()
        try await running.value
        producer.flush(timeout: .seconds(5))
        await db.close()
    }
}
