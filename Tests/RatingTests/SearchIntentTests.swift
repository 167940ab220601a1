import Contracts
import Foundation
import Jev
import MarketData
import Redis
import SearchIntent
import TestSupport
import Testing
import UpstreamFakes

/// docs/COMPATIBILITY.md#search-intent: the eight rules in order as a table, the probe, the Jev step, the fallback and
/// the cache.
struct IntentRulesTests {
    struct Case: Sendable, CustomStringConvertible {
        let q: String
        var geo = false
        /// The probe's answer for ticker-shaped queries (nil = the probe does not run).
        var quoteHit: Bool? = nil
        let intent: SearchIntentKind?
        var probability: Double = 0
        var symbol: String? = nil
        var screen: SearchIntentRoute.Screen? = nil
        var params: [String: String] = [:]
        var description: String { q }
    }

    static let cases: [Case] = [
        // 1 cashtag + ticker shape
        Case(q: "$aapl", intent: .ticker, probability: 0.97, symbol: "AAPL", screen: .detail, params: ["id": "AAPL"]),
        Case(
            q: "$BRK.B", intent: .ticker, probability: 0.97, symbol: "BRK.B", screen: .detail, params: ["id": "BRK.B"]),
        // 2 question shape (before the quote probe and the seed)
        Case(
            q: "is nike a buy?", intent: .question, probability: 0.90, screen: .research,
            params: ["q": "is nike a buy?"]),
        Case(
            q: "what's   driving  costco", intent: .question, probability: 0.90, screen: .research,
            params: ["q": "what's driving costco"]),
        Case(
            q: "tell me about starbucks", intent: .question, probability: 0.90, screen: .research,
            params: ["q": "tell me about starbucks"]),
        Case(q: "MCD?", intent: .question, probability: 0.90, screen: .research, params: ["q": "MCD?"]),
        // 3 ticker shape with a quote
        Case(
            q: "msft", quoteHit: true, intent: .ticker, probability: 0.95, symbol: "MSFT", screen: .detail,
            params: ["id": "MSFT"]),
        // 4 seed key (a ticker-shaped brand whose probe missed)
        Case(
            q: "Nike", quoteHit: false, intent: .brand, probability: 0.95, symbol: "NKE", screen: .detail,
            params: ["id": "NKE"]),
        Case(q: "Home Depot", intent: .brand, probability: 0.95, symbol: "HD", screen: .detail, params: ["id": "HD"]),
        // 5 locator phrases
        Case(q: "coffee near me", intent: .place, probability: 0.90, screen: .map, params: ["q": "coffee near me"]),
        Case(q: "starbucks nearby", intent: .place, probability: 0.90, screen: .map, params: ["q": "starbucks nearby"]),
        Case(q: "pizza open now", intent: .place, probability: 0.90, screen: .map, params: ["q": "pizza open now"]),
        // 6 seed key inside the text (longest wins)
        Case(
            q: "chipotle mexican grill downtown", intent: .brand, probability: 0.80, symbol: "CMG", screen: .detail,
            params: ["id": "CMG"]),
        // 7 venue words, or geo + preposition
        Case(q: "thai restaurants", intent: .place, probability: 0.85, screen: .map, params: ["q": "thai restaurants"]),
        Case(
            q: "sushi on main street", intent: .place, probability: 0.85, screen: .map,
            params: ["q": "sushi on main street"]),
        Case(
            q: "tacos in soho", geo: true, intent: .place, probability: 0.85, screen: .map,
            params: ["q": "tacos in soho"]),
        // 8 nothing matched → Jev (nil here)
        Case(q: "tacos in soho", intent: nil),
        Case(q: "zqxv", quoteHit: false, intent: nil),
        Case(q: "quantum gravity", intent: nil),
    ]

    @Test(arguments: cases)
    func deterministicRules(_ c: Case) {
        let query = IntentRules.Query(c.q, lat: c.geo ? 40.7 : nil, lng: c.geo ? -74 : nil)
        #expect(IntentRules.needsQuoteProbe(query) == (c.quoteHit != nil))
        let answer = IntentRules.deterministic(query, quoteHit: c.quoteHit)
        #expect(answer?.intent == c.intent)
        guard let answer, c.intent != nil else { return }
        #expect(answer.probability == c.probability && answer.method == .deterministic)
        #expect(answer.resolved.symbol == c.symbol)
        #expect(answer.route.screen == c.screen && answer.route.params == c.params)
        if c.intent == .brand { #expect(answer.resolved.brand == query.text) }
        if c.intent == .place { #expect(answer.resolved.placeQuery == query.text) }
    }

    @Test func fallbackIsTodaysBehaviour() {
        let shaped = IntentRules.fallback(IntentRules.Query("zqxv"))
        #expect(
            shaped
                == SearchIntentResponse(
                    intent: .ticker, probability: 0.5, resolved: SearchIntentResolved(symbol: "ZQXV"),
                    route: SearchIntentRoute(screen: .detail, params: ["id": "ZQXV"]), method: .fallback))
        let text = IntentRules.fallback(IntentRules.Query("quantum  gravity"))
        #expect(text.resolved == SearchIntentResolved() && text.route.params == ["id": "quantum gravity"])
        // Optional keys are omitted on the wire.
        let json = String(decoding: (try? JSONEncoder().encode(text)) ?? Data(), as: UTF8.self)
        #expect(json.contains("\"resolved\":{}") && !json.contains("null"))
    }

    @Test func normalisationAndShapes() {
        #expect(IntentRules.normalize("  a \n b  ") == "a b")
        #expect(IntentRules.normalize(String(repeating: "x", count: 300)).count == 200)
        #expect(
            IntentRules.isTickerShaped("brk.b") && !IntentRules.isTickerShaped("1ABC")
                && !IntentRules.isTickerShaped("TOOLONG"))
        #expect(IntentRules.Query("what\u{2019}s up with nvda").words.first == "what's")
        #expect(IntentRules.isQuestion(IntentRules.Query("what\u{2019}s up with nvda")))
        #expect(!IntentRules.isQuestion(IntentRules.Query("how now")))
    }
}

@Suite(.serialized) struct SearchIntentResolverTests {
    static func resolver(
        jev: FakeUpstream?, key: String? = "test-jev-key", redis: RedisClient?,
        probe: @escaping @Sendable (String) async -> Bool = { _ in false }
    ) -> SearchIntentResolver {
        SearchIntentResolver(
            quoteProbe: probe,
            jev: jev.map { JevFake.client($0, key: key) }
                ?? JevClient(apiKey: nil, http: testHTTPClient, logger: quietLogger()),
            redis: redis, logger: quietLogger())
    }

    @Test func ambiguousQueriesAskJevOnceAndAreCachedFiveMinutes() async throws {
        let redis = try await redisClient()
        let fixture = try RatingFixture()
        let q = "artisanal tofu \(UInt32.random(in: 0...UInt32.max))"
        let resolver = Self.resolver(jev: fixture.jev, redis: redis)
        let answer = await resolver.resolve(q: q, lat: nil, lng: nil)
        #expect(answer.intent == .place && answer.method == .jev && answer.probability == 0.74)
        #expect(answer.route == SearchIntentRoute(screen: .map, params: ["q": q]))
        let body = try #require(fixture.jev.lastRequest?.bodyText)
        #expect(body.contains("\"listed_ticker_check\":\"n/a\"") && body.contains("\"known_brand\":false"))
        #expect(body.contains("\"word_count\":3"))
        let ttl = try await redis.command("PTTL", "mapvest:intent:v1:\(q.lowercased())|0").integer ?? 0
        #expect(ttl > 290_000 && ttl <= 300_000)
        _ = await resolver.resolve(q: q, lat: nil, lng: nil)
        #expect(fixture.jevCalls.count == 1)
        await fixture.shutdown()
        await redis.close()
    }

    @Test func jevFailuresFallBackAndFallbacksAreNotCached() async throws {
        let redis = try await redisClient()
        var rules = JevFake.Rules()
        rules.status = 500
        let fixture = try RatingFixture(jev: rules)
        let q = "zq\(UInt16.random(in: 100...999))"  // ticker-shaped, no quote
        let resolver = Self.resolver(jev: fixture.jev, redis: redis)
        let answer = await resolver.resolve(q: q, lat: nil, lng: nil)
        #expect(answer.method == .fallback && answer.intent == .ticker && answer.probability == 0.5)
        #expect(answer.resolved.symbol == q.uppercased())
        #expect(try await redis.get("mapvest:intent:v1:\(q)|0") == nil)
        #expect(fixture.jev.lastRequest?.bodyText.contains("\"listed_ticker_check\":\"miss\"") == true)
        // Without a key: no call at all, same fallback.
        let keyless = Self.resolver(jev: fixture.jev, key: nil, redis: nil)
        let before = fixture.jevCalls.count
        #expect(await keyless.resolve(q: "quantum gravity", lat: nil, lng: nil).method == .fallback)
        #expect(fixture.jevCalls.count == before)
        await fixture.shutdown()
        await redis.close()
    }

    @Test func theQuoteProbeHasOnePointFiveSeconds() async throws {
        let resolver = Self.resolver(
            jev: nil, redis: nil,
            probe: { _ in
                try? await Task.sleep(for: .seconds(5))
                return true
            })
        let started = ContinuousClock.now
        let answer = await resolver.resolve(q: "ZZZQ", lat: nil, lng: nil)
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(1400) && elapsed < .milliseconds(2500))
        #expect(answer.method == .fallback)
        // The same through the market-data boundary, whose shared quote fetch ignores cancellation.
        var options = MarketFake.Options()
        options.delay = .seconds(4)
        let fixture = try RatingFixture(market: options)
        let market = MarketFake.client(fixture.market)
        let slowMarket = Self.resolver(jev: nil, redis: nil, probe: { await market.quote($0) != nil })
        let marketStarted = ContinuousClock.now
        #expect(await slowMarket.resolve(q: "ZZZR", lat: nil, lng: nil).method == .fallback)
        #expect(ContinuousClock.now - marketStarted < .milliseconds(2500))
        await fixture.shutdown()

        let fast = Self.resolver(jev: nil, redis: nil, probe: { $0 == "MSFT" })
        #expect(await fast.resolve(q: "msft", lat: nil, lng: nil).probability == 0.95)
        // Cashtags and questions never probe.
        let never = Self.resolver(
            jev: nil, redis: nil,
            probe: { _ in
                Issue.record("probe ran")
                return true
            })
        #expect(await never.resolve(q: "$MSFT", lat: nil, lng: nil).probability == 0.97)
    }
}
