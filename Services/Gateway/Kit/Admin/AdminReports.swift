import Runtime

/// What `GET /v1/admin/metrics` and `GET /v1/admin/cost` answer, computed from the fleet's usage hashes.
struct AdminReports: Sendable {
    /// What is measured and what is estimated, stated in every answer.
    static let basis =
        "Counts are summed from every replica's counters, reported to Redis every 10 s in hourly buckets (the window "
        + "is rounded up to whole hours). OpenRouter cost is what OpenRouter reported per call; Exa cost is estimated "
        + "at a flat price per request; market data and places calls are counted, not priced."

    /// `ADMIN_EXA_USD_PER_REQUEST`: the flat estimate per Exa request.
    let exaUSDPerRequest: Double

    /// `ADMIN_EXA_USD_PER_REQUEST` (default 0.005, accepted 0…10).
    static func exaPrice(_ env: Environment) -> Double {
        let price = env.get("ADMIN_EXA_USD_PER_REQUEST", default: 0.005)
        return price.isFinite && (0...10).contains(price) ? price : 0.005
    }

    struct Metrics: Codable, Sendable, Equatable {
        /// `METHOD /route/template` → requests in the window.
        var requests: [String: Int64]
        var costUsd: Double
        var windowSeconds: Int
        var basis: String
    }

    struct ModelUsage: Codable, Sendable, Equatable {
        var calls: Int64 = 0
        var failedCalls: Int64 = 0
        var promptTokens: Int64 = 0
        var completionTokens: Int64 = 0
        var reportedCostUsd: Double = 0
    }

    struct Cost: Codable, Sendable, Equatable {
        var windowSeconds: Int
        var costUsd: Double
        var openrouter: OpenRouter
        var exa: Exa
        /// Provider → requests.
        var marketData: [String: Int64]
        /// Places source → requests.
        var places: [String: Int64]
        var basis: String

        struct OpenRouter: Codable, Sendable, Equatable {
            var calls: Int64
            var reportedCostUsd: Double
            var byModel: [String: ModelUsage]
        }
        struct Exa: Codable, Sendable, Equatable {
            var calls: Int64
            var estimatedCostUsd: Double
            var usdPerRequest: Double
        }
    }

    func metrics(_ series: [UsageTotals.Series], hours: Int) -> Metrics {
        var requests: [String: Int64] = [:]
        for s in series where s.name == MetricNames.gatewayRequests {
            requests["\(s.labels["method"] ?? "?") \(s.labels["route"] ?? "?")", default: 0] += s.value
        }
        return Metrics(
            requests: requests, costUsd: cost(series, hours: hours).costUsd, windowSeconds: hours * 3600,
            basis: Self.basis)
    }

    func cost(_ series: [UsageTotals.Series], hours: Int) -> Cost {
        var models: [String: ModelUsage] = [:]
        var exaCalls: Int64 = 0
        var market: [String: Int64] = [:]
        var places: [String: Int64] = [:]
        for s in series {
            let model = s.labels["model"] ?? "?"
            switch s.name {
            case MetricNames.openRouterRequests:
                if s.labels["outcome"] == "ok" {
                    models[model, default: ModelUsage()].calls += s.value
                } else {
                    models[model, default: ModelUsage()].failedCalls += s.value
                }
            case MetricNames.openRouterTokens:
                if s.labels["kind"] == "prompt" { models[model, default: ModelUsage()].promptTokens += s.value }
                if s.labels["kind"] == "completion" { models[model, default: ModelUsage()].completionTokens += s.value }
            case MetricNames.openRouterCostMicroUSD:
                models[model, default: ModelUsage()].reportedCostUsd += Double(s.value) / 1_000_000
            case MetricNames.exaRequests: exaCalls += s.value
            case MetricNames.marketDataRequests: market[s.labels["provider"] ?? "?", default: 0] += s.value
            case MetricNames.placesRequests: places[s.labels["source"] ?? "?", default: 0] += s.value
            default: break
            }
        }
        let reported = models.values.reduce(0) { $0 + $1.reportedCostUsd }
        let exa = Double(exaCalls) * exaUSDPerRequest
        return Cost(
            windowSeconds: hours * 3600, costUsd: reported + exa,
            openrouter: Cost.OpenRouter(
                calls: models.values.reduce(0) { $0 + $1.calls }, reportedCostUsd: reported, byModel: models),
            exa: Cost.Exa(calls: exaCalls, estimatedCostUsd: exa, usdPerRequest: exaUSDPerRequest),
            marketData: market, places: places, basis: Self.basis)
    }
}
