import Contracts
import Finance
import Jev
import Redis
import Runtime

/// `POST /v1/search/intent` (docs/COMPATIBILITY.md#search-intent): the deterministic rules (with a 1.5 s live-quote
/// probe), then one Jev choice for the ambiguous remainder, then the fail-open fallback. Answers are cached 5 minutes
/// in Redis per `lower(q)|geo flag`, shared by replicas; fallbacks are not cached.
public struct SearchIntentResolver: Sendable {
    public static let cacheTTL: Duration = .seconds(300)
    static let probeBudget: Duration = .milliseconds(1500)
    public static let jevBudget: Duration = .seconds(3)

    /// Whether the symbol has a live quote (the market-data boundary; any quote is a hit).
    let quoteProbe: @Sendable (String) async -> Bool
    let jev: JevClient
    let gate: JevGate
    let matcher: BrandMatcher
    private let cache: RedisSharedCache<SearchIntentResponse>

    public init(
        quoteProbe: @escaping @Sendable (String) async -> Bool, jev: JevClient, gate: JevGate = JevGate(),
        redis: RedisClient?, matcher: BrandMatcher = .shared, logger: Logger
    ) {
        self.quoteProbe = quoteProbe
        self.jev = jev
        self.gate = gate
        self.matcher = matcher
        cache = RedisSharedCache(
            redis: redis, prefix: "mapvest:intent:v1:", lockTTL: .seconds(5), waitForOther: .milliseconds(500),
            logger: logger)
    }

    /// The cache key: `lower(q)|1` with a device location, `|0` without.
    public static func cacheKey(_ query: IntentRules.Query) -> String {
        query.text.lowercased() + "|" + (query.hasGeo ? "1" : "0")
    }

    public func resolve(q: String, lat: Double?, lng: Double?) async -> SearchIntentResponse {
        let query = IntentRules.Query(q, lat: lat, lng: lng)
        let outcome = await cache.value(
            Self.cacheKey(query), ttl: { $0.method == .fallback ? nil : Self.cacheTTL },
            compute: { [self] in await compute(query) })
        return outcome.value
    }

    func compute(_ query: IntentRules.Query) async -> SearchIntentResponse {
        var quoteHit: Bool?
        if IntentRules.needsQuoteProbe(query) {
            let symbol = query.symbol
            let probe = quoteProbe
            quoteHit = await withTimeLimit(Self.probeBudget) { await probe(symbol) } ?? false
        }
        if let answer = IntentRules.deterministic(query, quoteHit: quoteHit, matcher: matcher) { return answer }
        return await askJev(query, quoteHit: quoteHit) ?? IntentRules.fallback(query)
    }

    private struct State: Encodable, Sendable {
        let query: String
        let has_device_location: Bool
        let looks_like_ticker: Bool
        let listed_ticker_check: String
        let known_brand: Bool
        let word_count: Int
    }

    /// One choice over the four intents (3 s); nil on no key, failure, back-off or confidence below 0.55.
    func askJev(_ query: IntentRules.Query, quoteHit: Bool?) async -> SearchIntentResponse? {
        guard gate.allowsCalls else { return nil }
        let state = State(
            query: query.text, has_device_location: query.hasGeo, looks_like_ticker: query.isTickerShaped,
            listed_ticker_check: quoteHit.map { $0 ? "hit" : "miss" } ?? "n/a", known_brand: false,
            word_count: query.words.count)
        let result = await jev.choice(
            state: state,
            instructions:
                "What is this search box query: a stock ticker, a brand or company name, a place to find on a map, or a research question?",
            labels: SearchIntentKind.allCases.map(\.rawValue), overallTimeout: Self.jevBudget)
        gate.record(result)
        guard case .success(let answer) = result, let kind = SearchIntentKind(rawValue: answer.choice) else {
            return nil
        }
        return Self.mapJev(kind, answer: answer, query: query, matcher: matcher)
    }

    /// Jev's pick as a response: probability = the choice's probability (else its confidence).
    static func mapJev(
        _ kind: SearchIntentKind, answer: JevChoiceAnswer, query: IntentRules.Query, matcher: BrandMatcher
    ) -> SearchIntentResponse {
        let probability = answer.probabilities[answer.choice] ?? answer.confidence
        switch kind {
        case .ticker:
            return query.isTickerShaped
                ? IntentRules.ticker(query.symbol, probability: probability, method: .jev)
                : IntentRules.brand(query, symbol: nil, probability: probability, method: .jev)
        case .brand:
            return IntentRules.brand(
                query, symbol: matcher.longestSubstring(query.text)?.entry.ticker, probability: probability,
                method: .jev)
        case .place:
            return IntentRules.place(query, probability: probability, method: .jev)
        case .question:
            return IntentRules.question(query, probability: probability, method: .jev)
        }
    }
}
