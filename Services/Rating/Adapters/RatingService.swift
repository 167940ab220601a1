import Contracts
import Foundation
import Jev
import RatingCore
import Redis
import Runtime
import Synchronization

/// Computes ratings: the evidence packet, then one Jev call, then `RatingDecision`.
public struct RatingEngine: Sendable {
    let collector: EvidenceCollector
    let jev: JevClient
    /// Most time the Jev call may take (further cut to the caller's deadline). Default 8 s.
    public var jevTimeout: Duration = .seconds(8)

    public init(collector: EvidenceCollector, jev: JevClient) {
        self.collector = collector
        self.jev = jev
    }

    public func compute(ticker: String, deadline: ContinuousClock.Instant) async -> RatingResponse {
        let asOf = Timestamp.iso8601(Date())
        let evidence = await collector.collect(ticker)
        guard evidence.count >= 2 else {
            return RatingDecision.decide(ticker: ticker, asOf: asOf, evidence: evidence, answers: nil)
        }
        let left = deadline - ContinuousClock.now - .milliseconds(300)
        guard left > .milliseconds(200) else {
            return RatingDecision.decide(ticker: ticker, asOf: asOf, evidence: evidence, answers: nil)
        }
        let drivers = RatingDecision.presentDrivers(evidence)
        let answers = await jev.ask(
            state: RatingDecision.state(ticker: ticker, asOf: asOf, evidence: evidence),
            questions: Self.questions(ticker: ticker, drivers: drivers), overallTimeout: min(jevTimeout, left))
        return RatingDecision.decide(
            ticker: ticker, asOf: asOf, evidence: evidence, answers: RatingAnswers(answers))
    }

    /// `rating` (score), `primary_driver` (choice over the present drivers) and `up_<driver>` (noul) per driver.
    static func questions(ticker: String, drivers: [RatingDriverName]) -> [String: JevQuestion] {
        var questions: [String: JevQuestion] = [
            "rating": .score(
                instructions:
                    "Give a 3-month research signal for \(ticker) from this evidence: strong_sell, sell, hold, buy or strong_buy. Answer hold when the evidence is thin or mixed.",
                criteria: RatingDecision.criteria),
            "primary_driver": .choice(
                instructions: "Which evidence family drives the 3-month view of \(ticker) the most?",
                labels: drivers.map(\.rawValue)),
        ]
        for driver in drivers {
            questions["up_\(driver.rawValue)"] = .noul(
                instructions:
                    "Does the \(driver.rawValue.replacingOccurrences(of: "_", with: " ")) evidence argue that \(ticker) goes UP over the next 3 months?"
            )
        }
        return questions
    }
}

/// `GET /v1/rating/:ticker` with its cache (docs/COMPATIBILITY.md#rating-cache): Redis, shared by replicas, `ok` for
/// 1 h and `insufficient_signal` for 5 min; concurrent requests for one ticker share one computation (per process,
/// and across replicas through a short lock).
public struct RatingService: Sendable {
    static let okTTL: Duration = .seconds(3600)
    static let insufficientTTL: Duration = .seconds(300)
    public static let cacheControl = "public, max-age=300, stale-while-revalidate=900"

    /// A rating and where it came from.
    public struct Outcome: Sendable {
        public let response: RatingResponse
        /// Served from the cache (this process's flight or Redis) rather than computed for this call.
        public let cached: Bool
        /// How long the computation took, for the one caller whose call ran it (nil for every other caller, also
        /// those that shared its result): that caller publishes the `computed` event, once.
        public let computedIn: Duration?
    }

    let engine: RatingEngine
    let cache: RedisSharedCache<RatingResponse>

    public init(engine: RatingEngine, redis: RedisClient?, logger: Logger) {
        self.engine = engine
        cache = RedisSharedCache(
            redis: redis, prefix: "mapvest:rating:v1:", lockTTL: .seconds(12), waitForOther: .seconds(6), logger: logger
        )
    }

    /// The rating for an upper-cased, validated ticker; never fails (no signal is `insufficient_signal`).
    public func rating(_ ticker: String, deadline: ContinuousClock.Instant) async -> Outcome {
        let engine = self.engine
        // Only the first caller's closure runs (later callers share its flight), so only that call sees a duration.
        let timing = ComputeTiming()
        let outcome = await cache.value(
            ticker, ttl: { $0.status == .ok ? Self.okTTL : Self.insufficientTTL },
            compute: {
                let started = ContinuousClock.now
                let response = await engine.compute(ticker: ticker, deadline: deadline)
                timing.elapsed.withLock { $0 = ContinuousClock.now - started }
                return response
            })
        return Outcome(
            response: outcome.value, cached: outcome.origin == .cached, computedIn: timing.elapsed.withLock { $0 })
    }
}

/// Set by the computing closure of one `RatingService.rating` call.
private final class ComputeTiming: Sendable {
    let elapsed = Mutex<Duration?>(nil)
}
