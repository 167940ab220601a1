import Contracts
import Foundation
import HTTPServer
import Headlines
import Jev
import MarketData
import RatingAdapters
import Redis
import Runtime
import Synchronization
import TestSupport
import UpstreamFakes

func quietLogger() -> Logger { Logger(label: "rating-tests", level: .error, sink: .memory()) }

func jsonResponse(_ status: Int, _ text: String) -> HTTPResponse { .json(status, raw: Array(text.utf8)) }

/// A ticker no earlier run has cached: `Q` + four random letters.
func uniqueTicker() -> String {
    "Q" + String((0..<4).map { _ in "ABCDEFGHIJKLMNOPRSTUVWXYZ".randomElement() ?? "A" })
}

func redisClient() async throws -> RedisClient {
    try await RedisClient.make(url: try TestEnvironment.require("REDIS_URL"), size: 4, logger: quietLogger())
}

/// A counter shared with a fake's handler.
final class Counter: Sendable {
    private let value = Mutex(0)
    @discardableResult func next() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }
    var count: Int { value.withLock { $0 } }
}

/// A value tests change while a fake runs.
final class Setting<T: Sendable>: Sendable {
    private let value: Mutex<T>
    init(_ initial: T) { value = Mutex(initial) }
    func withLock<R>(_ body: (inout T) -> R) -> R { value.withLock { body(&$0) } }
}

/// A switch tests flip while a fake runs.
final class Flag: Sendable {
    private let value: Mutex<Bool>
    init(_ initial: Bool = false) { value = Mutex(initial) }
    var isOn: Bool { value.withLock { $0 } }
    func set(_ on: Bool) { value.withLock { $0 = on } }
}

/// One fake for Yahoo's chart endpoint and Massive's news and ratios (they have different paths).
enum MarketFake {
    struct Options: Sendable {
        var quote = true
        var history = true
        var ratios = true
        var headlines: [(title: String, url: String)] = []
        var newsStatus = 200
        var delay: Duration = .zero
    }

    static func handler(_ options: @escaping @Sendable () -> Options) -> FakeUpstream.Handler {
        { request in
            let o = options()
            if o.delay > .zero { try? await Task.sleep(for: o.delay) }
            let path = request.path
            if path.hasPrefix("/v7/finance/chart/") {
                let symbol = String(path.dropFirst("/v7/finance/chart/".count))
                if request.query["range"] == "1d" {
                    return o.quote ? jsonResponse(200, chart(symbol, closes: [297])) : jsonResponse(404, "{}")
                }
                guard o.history else { return jsonResponse(500, "{}") }
                // 63 trading days rising from 250 to 310.
                let closes = (0..<63).map { 250 + Double($0) * (60.0 / 62.0) }
                return jsonResponse(200, chart(symbol, closes: closes))
            }
            if path == "/stocks/financials/v1/ratios" {
                guard o.ratios else { return jsonResponse(200, "{\"status\":\"OK\",\"results\":[]}") }
                return jsonResponse(
                    200,
                    """
                    {"status":"OK","results":[{"ticker":"\(request.query["ticker"] ?? "")","date":"2026-08-01",\
                    "price_to_earnings":24.13,"price_to_sales":8.2,"price_to_book":-40.1,"ev_to_ebitda":18.4,\
                    "return_on_equity":0.452,"debt_to_equity":null,"dividend_yield":0.0231}]}
                    """)
            }
            if path == "/v2/reference/news" {
                guard o.newsStatus == 200 else { return jsonResponse(o.newsStatus, "{}") }
                let items = o.headlines.enumerated().map { i, h in
                    """
                    {"title":"\(h.title)","article_url":"\(h.url)","publisher":{"name":"Wire"},\
                    "published_utc":"2026-08-\(String(format: "%02d", 20 - i))T12:00:00Z"}
                    """
                }
                return jsonResponse(200, "{\"status\":\"OK\",\"results\":[\(items.joined(separator: ","))]}")
            }
            return jsonResponse(404, "{}")
        }
    }

    static func chart(_ symbol: String, closes: [Double]) -> String {
        let end = 1_787_000_000
        let stamps = closes.indices.map { String(end - (closes.count - 1 - $0) * 86_400 * 7 / 5) }
        return """
            {"chart":{"result":[{"meta":{"symbol":"\(symbol)","currency":"USD","regularMarketPrice":300,\
            "chartPreviousClose":297,"regularMarketTime":\(end),"shortName":"Test Co"},\
            "timestamp":[\(stamps.joined(separator: ","))],\
            "indicators":{"quote":[{"close":[\(closes.map { String($0) }.joined(separator: ","))]}]}}]}}
            """
    }

    static func client(_ fake: FakeUpstream) -> MarketDataClient {
        MarketDataClient(
            configuration: MarketDataConfiguration(
                primary: .yahoo, yahooBaseURL: fake.baseURL, massiveBaseURL: fake.baseURL, massiveAPIKey: "test-massive"
            ),
            http: testHTTPClient, logger: quietLogger())
    }
}

/// A Jev fake that answers whatever questions it is asked, from rules.
enum JevFake {
    struct Rules: Sendable {
        /// `rating` score: probabilities (nil → none) and confidence.
        var ratingProbabilities: [String: Double]? = [
            "strong_sell": 0.02, "sell": 0.08, "hold": 0.2, "buy": 0.6, "strong_buy": 0.1,
        ]
        var ratingScore: Double = 3
        var ratingConfidence = 0.71
        var primary = "momentum"
        var primaryConfidence = 0.8
        /// `up_<driver>` nouls; missing drivers get no answer.
        var nouls: [String: Double] = [
            "momentum": 0.8, "fundamentals": 0.7, "valuation": 0.3, "narrative": 0.5, "peer_forecast": 0.62,
        ]
        /// Headline level by title keyword.
        var materialityConfidence = 0.8
        var status = 200
        var delay: Duration = .zero
    }

    static func handler(calls: Counter? = nil, _ rules: @escaping @Sendable () -> Rules) -> FakeUpstream.Handler {
        { request in
            calls?.next()
            let r = rules()
            if r.delay > .zero { try? await Task.sleep(for: r.delay) }
            guard r.status == 200 else { return jsonResponse(r.status, "{\"error\":\"down\"}") }
            guard let body = try? JSONDecoder().decode(JSONValue.self, from: Data(request.body)),
                case .object(let top) = body, case .object(let questions)? = top["questions"]
            else { return jsonResponse(400, "{}") }
            var titles: [String: String] = [:]
            if case .object(let state)? = top["state"], case .array(let headlines)? = state["headlines"] {
                for case .object(let h) in headlines {
                    if case .string(let id)? = h["id"], case .string(let title)? = h["title"] { titles[id] = title }
                }
            }
            var answers: [String] = []
            for id in questions.keys.sorted() {
                if id == "rating" {
                    let probs =
                        r.ratingProbabilities.map { p in
                            p.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",")
                        } ?? ""
                    answers.append(
                        "\"rating\":{\"type\":\"score\",\"score\":\(r.ratingScore),\"probabilities\":{\(probs)},\"confidence\":\(r.ratingConfidence)}"
                    )
                } else if id == "primary_driver" {
                    answers.append(
                        "\"primary_driver\":{\"type\":\"choice\",\"choice\":\"\(r.primary)\",\"probabilities\":{\"\(r.primary)\":\(r.primaryConfidence)},\"confidence\":\(r.primaryConfidence)}"
                    )
                } else if id.hasPrefix("up_") {
                    if let p = r.nouls[String(id.dropFirst(3))] {
                        answers.append("\"\(id)\":{\"type\":\"noul\",\"noul\":\(p)}")
                    }
                } else if id.hasPrefix("h") {
                    let title = titles[id]?.lowercased() ?? ""
                    let level =
                        title.contains("earnings") || title.contains("recall")
                        ? "material" : title.contains("minor") ? "minor" : "noise"
                    let probs: String =
                        switch level {
                        case "material": "\"noise\":0.05,\"minor\":0.15,\"material\":0.8"
                        case "minor": "\"noise\":0.2,\"minor\":0.7,\"material\":0.1"
                        default: "\"noise\":0.9,\"minor\":0.1,\"material\":0"
                        }
                    answers.append(
                        "\"\(id)\":{\"type\":\"choice\",\"choice\":\"\(level)\",\"probabilities\":{\(probs)},\"confidence\":\(r.materialityConfidence)}"
                    )
                } else if id == "q" {
                    answers.append(
                        "\"q\":{\"type\":\"choice\",\"choice\":\"place\",\"probabilities\":{\"place\":0.74},\"confidence\":0.74}"
                    )
                }
            }
            return jsonResponse(200, "{\"model\":\"jev-latest\",\"answers\":{\(answers.joined(separator: ","))}}")
        }
    }

    static func client(_ fake: FakeUpstream, key: String? = "test-jev-key") -> JevClient {
        JevClient(
            baseURL: fake.baseURL, apiKey: key, attemptTimeout: .seconds(4), http: testHTTPClient, logger: quietLogger()
        )
    }

    /// Whether a recorded request was the rating question batch.
    static func isRatingCall(_ request: FakeUpstream.RecordedRequest) -> Bool {
        request.bodyText.contains("\"primary_driver\"")
    }
}

/// An Underlying fake: Prism, Situate and the peer forecast.
enum UnderlyingFake {
    struct Options: Sendable {
        var prism = true
        var situate = true
        var peer: String? =
            "{\"available\":true,\"bucket\":\"top_quintile\",\"expected_excess_return\":0.021,\"confidence\":0.64,\"probabilities\":{\"top_quintile\":0.41}}"
        var peerStatus = 200
        var peerDelay: Duration = .zero
    }

    static func handler(_ options: @escaping @Sendable () -> Options) -> FakeUpstream.Handler {
        { request in
            let o = options()
            let path = request.path
            if path.hasPrefix("/api/tabular/peer-forecast/") {
                if o.peerDelay > .zero { try? await Task.sleep(for: o.peerDelay) }
                guard let peer = o.peer else { return jsonResponse(404, "{}") }
                return jsonResponse(o.peerStatus, peer)
            }
            if path.hasPrefix("/api/prism/") && path.hasSuffix("/summary") {
                guard o.prism else { return jsonResponse(404, "{\"error\":\"not stored\"}") }
                return jsonResponse(
                    200,
                    """
                    {"ticker":"X","recommendation":{"action":"buy","strength":"normal","conviction":0.66,\
                    "one_line":"Buy · pricing power holds"},"split":{"bull":0.45,"neutral":0.35,"bear":0.2},"regime":"risk-on"}
                    """)
            }
            if path.hasPrefix("/api/situate/") && path.hasSuffix("/summary") {
                guard o.situate else { return jsonResponse(404, "{}") }
                return jsonResponse(
                    200,
                    "{\"ticker\":\"X\",\"posture\":{\"stance\":\"odds_favorable\",\"horizon\":\"3m\",\"conviction\":0.58,\"one_line\":\"Odds lean up\"}}"
                )
            }
            return jsonResponse(404, "{}")
        }
    }
}

/// Every fake a rating needs, and the service over them.
final class RatingFixture: Sendable {
    let market: FakeUpstream
    let jev: FakeUpstream
    let underlying: FakeUpstream
    let jevCalls = Counter()
    let marketOptions: Setting<MarketFake.Options>
    let jevRules: Setting<JevFake.Rules>
    let underlyingOptions: Setting<UnderlyingFake.Options>

    init(
        market: MarketFake.Options = .init(), jev: JevFake.Rules = .init(), underlying: UnderlyingFake.Options = .init()
    ) throws {
        let marketOptions = Setting(market)
        let jevRules = Setting(jev)
        let underlyingOptions = Setting(underlying)
        self.marketOptions = marketOptions
        self.jevRules = jevRules
        self.underlyingOptions = underlyingOptions
        self.market = try FakeUpstream(MarketFake.handler { marketOptions.withLock { $0 } })
        let calls = jevCalls
        self.jev = try FakeUpstream(JevFake.handler(calls: calls) { jevRules.withLock { $0 } })
        self.underlying = try FakeUpstream(UnderlyingFake.handler { underlyingOptions.withLock { $0 } })
    }

    func materiality(redis: RedisClient?, gate: JevGate = JevGate()) -> HeadlineMateriality {
        HeadlineMateriality(jev: JevFake.client(jev), gate: gate, redis: redis, logger: quietLogger())
    }

    func collector(redis: RedisClient?, perSource: Duration = .seconds(3)) -> EvidenceCollector {
        EvidenceCollector(
            market: MarketFake.client(market),
            underlying: UnderlyingClient(baseURL: underlying.baseURL, http: testHTTPClient, logger: quietLogger()),
            memos: ResearchMemos(redis: redis), materiality: materiality(redis: redis), perSource: perSource)
    }

    func service(redis: RedisClient?, perSource: Duration = .seconds(3)) -> RatingService {
        RatingService(
            engine: RatingEngine(collector: collector(redis: redis, perSource: perSource), jev: JevFake.client(jev)),
            redis: redis, logger: quietLogger())
    }

    func shutdown() async {
        await market.shutdown()
        await jev.shutdown()
        await underlying.shutdown()
    }
}
