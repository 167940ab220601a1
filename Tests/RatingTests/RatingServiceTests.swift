import Contracts
import Foundation
import Jev
import RatingAdapters
import RatingCore
import Redis
import Runtime
import TestSupport
import Testing
import UpstreamFakes

/// The rating end to end in-process: evidence from loopback fakes (Yahoo/Massive, Underlying, Jev), the decision,
/// and the Redis cache.
@Suite(.serialized) struct RatingServiceTests {
    static let headlines: [(title: String, url: String)] = [
        ("Company beats earnings estimates", "https://news.example/\(UUID().uuidString)/1"),
        ("CEO interview: minor changes ahead", "https://news.example/\(UUID().uuidString)/2"),
        ("Stock mentioned in a listicle", "https://news.example/\(UUID().uuidString)/3"),
    ]

    @Test func everySourceResolvesAndOneJevCallRatesIt() async throws {
        let redis = try await redisClient()
        var market = MarketFake.Options()
        market.headlines = Self.headlines
        let fixture = try RatingFixture(market: market)
        let ticker = uniqueTicker()
        let service = fixture.service(redis: redis)

        let first = await service.rating(ticker, deadline: .now + .seconds(9))
        let response = first.response
        #expect(!first.cached && first.computedIn != nil)
        #expect(response.status == .ok && response.ticker == ticker)
        #expect(response.inputsUsed == ["quote", "ratios", "prism", "situate", "headlines", "peer_forecast"])
        #expect(
            response.evidence.map(\.source) == ["quote", "ratios", "prism", "situate", "headlines", "peer_forecast"])
        let byName = Dictionary(uniqueKeysWithValues: response.evidence.map { ($0.source, $0) })
        #expect(byName["quote"]?.summary.hasPrefix("Price 300.00 USD (+1.01% today); 1m ") == true)
        #expect(byName["quote"]?.summary.contains("below 3-month high") == true)
        #expect(
            byName["ratios"]?.summary == "P/E 24.1, P/S 8.2, P/B -40.1, EV/EBITDA 18.4, ROE 45.2%, dividend yield 2.3%")
        #expect(byName["headlines"]?.summary == "Material headlines: Company beats earnings estimates")
        #expect(byName["headlines"]?.ref == "/v1/news?ticker=\(ticker)&materiality=material")
        #expect(byName["prism"]?.ref == fixture.underlying.baseURL + "/api/prism/\(ticker)/summary")
        #expect(byName["prism"]?.summary.contains("bull 45% / neutral 35% / bear 20%") == true)
        #expect(
            byName["peer_forecast"]?.summary
                == "Peer forecast (3 months): bucket top_quintile, expected excess return +2.1%, confidence 0.64")
        let peerRequest = fixture.underlying.requests.first { $0.path.hasPrefix("/api/tabular/peer-forecast/") }
        #expect(peerRequest?.query["horizon"] == "3")

        let rating = try #require(response.rating)
        #expect(rating.action == .buy && rating.strength == .strong && rating.conviction == 0.71)
        // momentum 0.8 up (primary), fundamentals 0.7 up, peer_forecast 0.62 up, valuation 0.3 down, narrative flat.
        #expect(rating.oneLine == "Buy · momentum + fundamentals; valuation headwind")
        #expect(response.drivers.first?.name == .momentum)
        #expect(response.disclaimer == RatingResponse.disclaimer)

        // One Jev call for the rating (the headline batch is the materiality call).
        let ratingCalls = fixture.jev.requests.filter(JevFake.isRatingCall)
        #expect(ratingCalls.count == 1)
        let body = try #require(ratingCalls.first?.bodyText)
        for id in [
            "rating", "primary_driver", "up_momentum", "up_valuation", "up_fundamentals", "up_narrative",
            "up_peer_forecast",
        ] {
            #expect(body.contains("\"\(id)\""))
        }
        #expect(!body.contains("up_macro") && body.contains("\"evidence\""))

        // Cached for an hour, and served from the cache.
        let ttl = try await redis.command("PTTL", "mapvest:rating:v1:\(ticker)").integer ?? 0
        #expect(ttl > 3590 * 1000 && ttl <= 3600 * 1000)
        let again = await service.rating(ticker, deadline: .now + .seconds(9))
        #expect(again.cached && again.response == response && again.computedIn == nil)
        #expect(fixture.jev.requests.filter(JevFake.isRatingCall).count == 1)
        await fixture.shutdown()
        await redis.close()
    }

    @Test func aJevOutageIsInsufficientSignalWithNullRatingNeverAHold() async throws {
        let redis = try await redisClient()
        var rules = JevFake.Rules()
        rules.status = 503
        let fixture = try RatingFixture(jev: rules)
        let ticker = uniqueTicker()
        let response = await fixture.service(redis: redis).rating(ticker, deadline: .now + .seconds(9)).response
        #expect(response.status == .insufficientSignal && response.rating == nil && response.probabilities == nil)
        #expect(response.drivers.isEmpty && response.confidence == 0)
        #expect(response.inputsUsed.count >= 2)
        let text = String(decoding: try JSONEncoder().encode(response), as: UTF8.self)
        #expect(text.contains("\"rating\":null") && !text.contains("\"hold\""))
        // Insufficient answers are cached five minutes.
        let ttl = try await redis.command("PTTL", "mapvest:rating:v1:\(ticker)").integer ?? 0
        #expect(ttl > 290 * 1000 && ttl <= 300 * 1000)
        await fixture.shutdown()
        await redis.close()
    }

    @Test func noJevKeyIsInsufficientWithoutAnyCall() async throws {
        let fixture = try RatingFixture()
        let service = RatingService(
            engine: RatingEngine(collector: fixture.collector(redis: nil), jev: JevFake.client(fixture.jev, key: nil)),
            redis: nil, logger: quietLogger())
        let response = await service.rating(uniqueTicker(), deadline: .now + .seconds(9)).response
        #expect(response.status == .insufficientSignal && response.rating == nil)
        #expect(fixture.jevCalls.count == 0)
        await fixture.shutdown()
    }

    @Test func fewerThanTwoSourcesNeverAsksJev() async throws {
        var market = MarketFake.Options()
        market.quote = false
        market.ratios = false
        var underlying = UnderlyingFake.Options()
        underlying.prism = false
        underlying.peer = "{\"available\":false,\"bucket\":\"top_quintile\"}"
        let fixture = try RatingFixture(market: market, underlying: underlying)
        let response = await fixture.service(redis: nil).rating(uniqueTicker(), deadline: .now + .seconds(9)).response
        #expect(response.status == .insufficientSignal && response.inputsUsed == ["situate"])
        #expect(response.drivers.isEmpty)
        #expect(fixture.jev.requests.filter(JevFake.isRatingCall).isEmpty)
        await fixture.shutdown()
    }

    @Test func slowFailedAndGarbageSourcesDropOutWithinTheirBudget() async throws {
        var market = MarketFake.Options()
        market.history = false  // the quote still counts, without its history stats
        var underlying = UnderlyingFake.Options()
        underlying.peerDelay = .seconds(3)
        underlying.situate = false
        let fixture = try RatingFixture(market: market, underlying: underlying)
        let collector = fixture.collector(redis: nil, perSource: .milliseconds(600))
        let started = ContinuousClock.now
        let evidence = await collector.collect(uniqueTicker())
        #expect(ContinuousClock.now - started < .milliseconds(1200))
        #expect(evidence.map(\.id) == [.quote, .ratios, .prism])
        #expect(evidence.first?.summary == "Price 300.00 USD (+1.01% today)")

        // Garbage and unavailable forecasts are absent too.
        for body in ["<html>", "{\"available\":true}", "{\"available\":false,\"bucket\":\"q1\"}", "[1,2]"] {
            fixture.underlyingOptions.withLock {
                $0.peerDelay = .zero
                $0.peer = body
            }
            let client = UnderlyingClient(
                baseURL: fixture.underlying.baseURL, http: testHTTPClient, logger: quietLogger())
            #expect(await client.peerForecast("MCD", timeout: .seconds(1)) == nil)
        }
        fixture.underlyingOptions.withLock { $0.peerStatus = 500 }
        #expect(
            await UnderlyingClient(baseURL: fixture.underlying.baseURL, http: testHTTPClient, logger: quietLogger())
                .peerForecast(
                    "MCD", timeout: .seconds(1)) == nil)
        await fixture.shutdown()
    }

    @Test func aSlowMarketDataProviderCostsNoMoreThanTheSourceBudget() async throws {
        var market = MarketFake.Options()
        market.delay = .seconds(2)
        let fixture = try RatingFixture(market: market)
        let started = ContinuousClock.now
        let evidence = await fixture.collector(redis: nil, perSource: .milliseconds(500)).collect(uniqueTicker())
        #expect(ContinuousClock.now - started < .milliseconds(900))
        #expect(evidence.map(\.id) == [.prism, .situate, .peerForecast])
        await fixture.shutdown()
    }

    @Test func concurrentRequestsForOneTickerShareOneComputation() async throws {
        let redis = try await redisClient()
        var rules = JevFake.Rules()
        rules.delay = .milliseconds(300)
        let fixture = try RatingFixture(jev: rules)
        let service = fixture.service(redis: redis)
        let ticker = uniqueTicker()
        let outcomes = await withTaskGroup(of: RatingService.Outcome.self) { group in
            for _ in 0..<12 { group.addTask { await service.rating(ticker, deadline: .now + .seconds(9)) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let responses = outcomes.map(\.response)
        #expect(responses.count == 12 && Set(responses.map(\.asOf)).count == 1)
        // Exactly one call ran the computation, so exactly one publishes the computed event.
        #expect(outcomes.filter { $0.computedIn != nil }.count == 1)
        #expect(fixture.jev.requests.filter(JevFake.isRatingCall).count == 1)
        // A second process (another replica) finds the answer in Redis.
        let replica = fixture.service(redis: redis)
        let other = await replica.rating(ticker, deadline: .now + .seconds(9))
        #expect(other.cached && other.computedIn == nil && other.response == responses[0])
        await fixture.shutdown()
        await redis.close()
    }

    @Test func cacheOnlyMemosAreReadNeverBuilt() async throws {
        let redis = try await redisClient()
        let fixture = try RatingFixture()
        let ticker = uniqueTicker()
        try await redis.set(
            ResearchMemos.redisKey(.synthesis, ticker),
            Array(
                "{\"summary\":\"Binding constraint: store traffic.\\n Demand durable;  pricing power intact.\"}".utf8),
            ttl: .seconds(60))
        let evidence = await fixture.collector(redis: redis).collect(ticker)
        let synthesis = try #require(evidence.first { $0.id == .synthesis })
        #expect(synthesis.wire.source == "synthesis_memo")
        #expect(synthesis.summary == "Binding constraint: store traffic. Demand durable; pricing power intact.")
        #expect(!evidence.contains { $0.id == .pulse || $0.id == .environment })
        await fixture.shutdown()
        await redis.close()
    }
}
