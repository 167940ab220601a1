/// Metric names used in more than one place: registered by one module and read by another (usage reports, admin
/// totals), or registered with several label sets. Names follow Prometheus (`snake_case`, `_total` for counters).
public enum MetricNames {
    public static let gatewayRequests = "gateway_requests_total"
    public static let openRouterRequests = "openrouter_requests_total"
    public static let openRouterTokens = "openrouter_tokens_total"
    public static let openRouterCostMicroUSD = "openrouter_cost_microusd_total"
    public static let exaRequests = "exa_requests_total"
    public static let marketDataRequests = "market_data_requests_total"
    public static let placesRequests = "places_requests_total"
    public static let postgresQueries = "postgres_queries_total"
    public static let logLinesSuppressed = "log_lines_suppressed_total"
}
