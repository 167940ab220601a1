import Foundation
import Redis
import Runtime
import Synchronization

/// Reports this process's growth of selected Prometheus counters (requests per route, upstream calls and tokens)
/// into hourly Redis hashes shared by every replica and service (`mapvest:usage:<yyyyMMddHH>`, field
/// `name{labels}`, kept 49 h), so the gateway's admin routes can sum a window across the fleet. Deltas are flushed
/// every `interval` and once more on shutdown; a failed flush keeps its delta for the next one.
public final class UsageReporter: Service {
    static let keyPrefix = "mapvest:usage:"
    /// The counters the admin routes read.
    public static let counters: Set<String> = [
        MetricNames.gatewayRequests, MetricNames.openRouterRequests, MetricNames.openRouterTokens,
        MetricNames.openRouterCostMicroUSD, MetricNames.exaRequests, MetricNames.marketDataRequests,
        MetricNames.placesRequests,
    ]
    public let name = "usage-reporter"
    private let redis: RedisClient
    private let registry: MetricsRegistry
    private let interval: Duration
    private let logger: Logger
    private let reported = Mutex<[String: Int64]>([:])
    private let stopping = Atomic<Bool>(false)

    public init(
        redis: RedisClient, registry: MetricsRegistry = .shared, interval: Duration = .seconds(10), logger: Logger
    ) {
        self.redis = redis
        self.registry = registry
        self.interval = interval
        self.logger = logger
    }

    /// A reporter flushing every `USAGE_REPORT_INTERVAL_MS` (default 10 s).
    public static func fromEnvironment(_ env: Environment, redis: RedisClient, logger: Logger) -> UsageReporter {
        UsageReporter(
            redis: redis, interval: env.milliseconds("USAGE_REPORT_INTERVAL_MS", default: .seconds(10)), logger: logger)
    }

    /// The hourly bucket key of `date` (UTC).
    public static func bucket(_ date: Date) -> String {
        let iso = Timestamp.iso8601(date)  // yyyy-MM-ddTHH:…
        return keyPrefix + iso.prefix(13).filter(\.isNumber)
    }

    public func run() async throws {
        var next = ContinuousClock.now + interval
        while !stopping.load(ordering: .acquiring) {
            try? await Task.sleep(for: .milliseconds(250))
            if ContinuousClock.now >= next {
                await flush()
                next = .now + interval
            }
        }
        await flush()
    }

    public func shutdown() async { stopping.store(true, ordering: .releasing) }

    /// Adds what each counter grew since the last successful flush to the current hour's hash.
    func flush() async {
        let current = registry.counterValues(Self.counters)
        let deltas = reported.withLock { reported in
            current.compactMap { key, value -> (String, Int64)? in
                let delta = value - (reported[key] ?? 0)
                return delta > 0 ? (key, delta) : nil
            }
        }
        guard !deltas.isEmpty else { return }
        let script = """
            for i = 1, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
            redis.call('EXPIRE', KEYS[1], 176400)
            return 1
            """
        do {
            _ = try await redis.eval(
                script, keys: [Self.bucket(Date())], args: deltas.flatMap { [$0.0, String($0.1)] })
            reported.withLock { reported in
                for (key, delta) in deltas { reported[key, default: 0] += delta }
            }
        } catch {
            logger.warning("usage report failed; kept for the next flush", [LogKeys.error: .string("\(error)")])
        }
    }
}
