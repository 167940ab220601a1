import Contracts
import Foundation
import Headlines
import Jev
import MarketData
import Redis
import TestSupport
import Testing
import UpstreamFakes

/// docs/COMPATIBILITY.md#news: materiality tags from one batched call, the memo, the back-off, and the floor that never
/// hides news.
@Suite(.serialized) struct NewsTests {
    static func headlines(_ tag: String = UUID().uuidString) -> [(title: String, url: String)] {
        [
            ("Quarterly earnings beat; guidance raised", "https://news.example/\(tag)/a"),
            ("Analyst makes minor tweak", "https://news.example/\(tag)/b"),
            ("Ten stocks to watch", "https://news.example/\(tag)/c"),
            ("Product recall widens", "https://news.example/\(tag)/d"),
        ]
    }

    static func page(_ fixture: RatingFixture, redis: RedisClient?, gate: JevGate = JevGate()) -> NewsPage {
        NewsPage(market: MarketFake.client(fixture.market), materiality: fixture.materiality(redis: redis, gate: gate))
    }

    @Test func onePageIsOneJevCallAndTheMemoAnswersTheNext() async throws {
        let redis = try await redisClient()
        var market = MarketFake.Options()
        market.headlines = Self.headlines()
        let fixture = try RatingFixture(market: market)
        let page = Self.page(fixture, redis: redis)
        let response = await page.page(
            NewsCommand(ticker: "MCD", limit: 6, materiality: nil), deadline: .now + .seconds(5))
        #expect(response.provider == "massive" && response.items.count == 4 && response.materiality == nil)
        #expect(fixture.jevCalls.count == 1)
        let tags = response.items.map(\.jevMateriality)
        #expect(tags[0] == JevMateriality(level: .material, score: 0.875, confidence: 0.8))
        #expect(tags[1] == JevMateriality(level: .minor, score: 0.45, confidence: 0.8))
        #expect(tags[2]?.level == .noise && tags[2]?.score == 0.05)
        let body = try #require(fixture.jev.lastRequest?.bodyText)
        #expect(body.contains("\"tickers\":[\"MCD\"]") && body.contains("\"id\":\"h3\""))

        // Another page (another process) finds every answer memoized in Redis: no call.
        let other = Self.page(fixture, redis: redis)
        let again = await other.page(
            NewsCommand(ticker: "MCD", limit: 6, materiality: .material), deadline: .now + .seconds(5))
        #expect(fixture.jevCalls.count == 1)
        #expect(again.items.map(\.title) == ["Quarterly earnings beat; guidance raised", "Product recall widens"])
        #expect(again.materiality == .material)
        let json = String(decoding: try JSONEncoder().encode(again), as: UTF8.self)
        #expect(json.contains("\"materiality\":\"material\"") && json.contains("\"jev_materiality\":{"))
        await fixture.shutdown()
        await redis.close()
    }

    @Test func aJevOutageNeverHidesNewsAndBacksOff() async throws {
        var market = MarketFake.Options()
        market.headlines = Self.headlines()
        var rules = JevFake.Rules()
        rules.status = 500
        let fixture = try RatingFixture(market: market, jev: rules)
        let gate = JevGate()
        let page = Self.page(fixture, redis: nil, gate: gate)
        let response = await page.page(
            NewsCommand(ticker: "MCD", limit: 6, materiality: .material), deadline: .now + .seconds(5))
        #expect(response.items.count == 4 && response.items.allSatisfy { $0.jevMateriality == nil })
        let json = String(decoding: try JSONEncoder().encode(response), as: UTF8.self)
        #expect(!json.contains("jev_materiality"))
        #expect(fixture.jevCalls.count == 1 && !gate.allowsCalls)
        // Inside the back-off: no call, still every item.
        let second = await page.page(
            NewsCommand(ticker: "MCD", limit: 6, materiality: .minor), deadline: .now + .seconds(5))
        #expect(second.items.count == 4 && fixture.jevCalls.count == 1)
        await fixture.shutdown()
    }

    @Test func lowConfidenceAndSlowAnswersLeaveItemsUnscored() async throws {
        var market = MarketFake.Options()
        market.headlines = Self.headlines()
        var rules = JevFake.Rules()
        rules.materialityConfidence = 0.54
        let fixture = try RatingFixture(market: market, jev: rules)
        let response = await Self.page(fixture, redis: nil).page(
            NewsCommand(ticker: "MCD", limit: 6, materiality: .material), deadline: .now + .seconds(5))
        #expect(response.items.count == 4 && response.items.allSatisfy { $0.jevMateriality == nil })

        fixture.jevRules.withLock {
            $0.materialityConfidence = 0.9
            $0.delay = .seconds(3)
        }
        var fresh = market
        fresh.headlines = Self.headlines()
        fixture.marketOptions.withLock { $0 = fresh }
        let started = ContinuousClock.now
        let slow = await Self.page(fixture, redis: nil).page(
            NewsCommand(ticker: "MCD", limit: 6, materiality: nil), deadline: .now + .milliseconds(800))
        #expect(ContinuousClock.now - started < .milliseconds(1500))
        #expect(slow.items.count == 4 && slow.items.allSatisfy { $0.jevMateriality == nil })
        await fixture.shutdown()
    }

    @Test func providerFailureIsAnEmptyErrorPage() async throws {
        var market = MarketFake.Options()
        market.newsStatus = 502
        let fixture = try RatingFixture(market: market)
        let response = await Self.page(fixture, redis: nil).page(
            NewsCommand(ticker: "MCD", limit: 6, materiality: nil), deadline: .now + .seconds(5))
        #expect(response.items.isEmpty && response.provider == "error")
        let json = String(decoding: try JSONEncoder().encode(response), as: UTF8.self)
        #expect(json.contains("\"materiality\":null"))
        #expect(fixture.jevCalls.count == 0)
        await fixture.shutdown()
    }

    @Test func aSlowProviderIsAProviderFailureWithinTheDeadline() async throws {
        var market = MarketFake.Options()
        market.headlines = Self.headlines()
        market.delay = .seconds(3)
        let fixture = try RatingFixture(market: market)
        let started = ContinuousClock.now
        let response = await Self.page(fixture, redis: nil).page(
            NewsCommand(ticker: "MCD", limit: 6, materiality: nil), deadline: .now + .seconds(1))
        #expect(ContinuousClock.now - started < .milliseconds(1100))
        #expect(response.items.isEmpty && response.provider == "error")
        await fixture.shutdown()
    }

    @Test(arguments: [
        (MaterialityLevel?.none, 4), (.noise, 4), (.minor, 3), (.material, 2),
    ])
    func floorsKeepLevelsAtOrAboveAndEveryUnscoredItem(floor: MaterialityLevel?, expected: Int) {
        let items = [
            NewsHeadline(
                title: "a", url: "u1", source: "s", publishedAt: "t",
                jevMateriality: .init(level: .material, score: 1, confidence: 0.9)),
            NewsHeadline(
                title: "b", url: "u2", source: "s", publishedAt: "t",
                jevMateriality: .init(level: .minor, score: 0.5, confidence: 0.9)),
            NewsHeadline(
                title: "c", url: "u3", source: "s", publishedAt: "t",
                jevMateriality: .init(level: .noise, score: 0, confidence: 0.9)),
            NewsHeadline(title: "d", url: "u4", source: "s", publishedAt: "t"),
        ]
        #expect(NewsPage.filter(items, floor: floor).count == expected)
    }

    @Test func materialityScoresAndQueryParsing() {
        #expect(
            HeadlineMateriality.materiality(JevChoiceAnswer(choice: "minor", probabilities: [:], confidence: 0.6))
                == JevMateriality(level: .minor, score: 0.5, confidence: 0.6))
        #expect(
            HeadlineMateriality.materiality(
                JevChoiceAnswer(choice: "material", probabilities: ["0": 1], confidence: 0.7))?.score == 1)
        #expect(
            HeadlineMateriality.materiality(JevChoiceAnswer(choice: "huge", probabilities: [:], confidence: 0.9)) == nil
        )
        #expect(
            MaterialityLevel(query: "MATERIAL") == .material && MaterialityLevel(query: "big") == nil
                && MaterialityLevel(query: nil) == nil)
        let key = HeadlineMateriality.Headline(
            id: "https://x", ticker: "MCD", title: "T", source: "S", publishedAt: nil
        ).memoKey
        #expect(key.hasPrefix("https://x::") && key.count == "https://x::".count + 16)
    }
}
