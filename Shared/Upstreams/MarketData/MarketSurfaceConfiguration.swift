import Runtime

/// Settings of the market-data surface beyond quotes and history (docs/CONFIGURATION.md).
public struct MarketSurfaceConfiguration: Sendable {
    /// Retries of a Massive request after the first attempt (on 408, 425, 429, 5xx and network errors). 0…4, default 2.
    public var maxRetries: Int = 2
    /// Pause before retry n is `retryDelay` × 2ⁿ plus jitter (or the upstream's `Retry-After`), capped at 2 s.
    public var retryDelay: Duration = .milliseconds(100)
    /// Per-attempt timeout, at least 250 ms. Default 5 s.
    public var timeout: Duration = .seconds(5)
    /// Whether the TMX partner corporate-events dataset is subscribed.
    public var corporateEventsEnabled = false
    /// The subscribed Massive plans, reported by the capabilities route.
    public var stocksPlan: String?
    public var optionsPlan: String?
    public var eventsPlan: String?
    /// Massive requests per minute for all replicas together; 0 = unpaced. Default: 5 when a plan is Basic (free),
    /// else unpaced (paid plans have no request cap).
    public var requestsPerMinute = 0

    public init() {}

    /// The plan's pace: Massive's Basic (free) plan allows 5 requests a minute.
    static func defaultPace(plans: [String?]) -> Int {
        plans.contains { ["basic", "free"].contains($0?.lowercased()) } ? 5 : 0
    }

    /// `MASSIVE_MAX_RETRIES`, `MASSIVE_RETRY_DELAY_MS`, `MASSIVE_TIMEOUT_MS`, `MASSIVE_CORPORATE_EVENTS_ENABLED=1`,
    /// `MASSIVE_STOCKS_PLAN`, `MASSIVE_OPTIONS_PLAN`, `MASSIVE_EVENTS_PLAN`, `MASSIVE_REQUESTS_PER_MINUTE`.
    public static func fromEnvironment(_ env: Environment) -> MarketSurfaceConfiguration {
        var c = MarketSurfaceConfiguration()
        c.maxRetries = min(4, max(0, env.get("MASSIVE_MAX_RETRIES", default: 2)))
        c.retryDelay = .milliseconds(min(2000, max(0, env.get("MASSIVE_RETRY_DELAY_MS", default: 100))))
        c.timeout = .milliseconds(max(250, env.get("MASSIVE_TIMEOUT_MS", default: 5000)))
        c.corporateEventsEnabled = env.get("MASSIVE_CORPORATE_EVENTS_ENABLED") == "1"
        c.stocksPlan = env.get("MASSIVE_STOCKS_PLAN")
        c.optionsPlan = env.get("MASSIVE_OPTIONS_PLAN")
        c.eventsPlan = env.get("MASSIVE_EVENTS_PLAN")
        c.requestsPerMinute = max(
            0,
            env.get(
                "MASSIVE_REQUESTS_PER_MINUTE",
                default: defaultPace(plans: [c.stocksPlan, c.optionsPlan, c.eventsPlan])))
        return c
    }
}
