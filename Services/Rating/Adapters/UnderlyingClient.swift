import Contracts
import Foundation
import HTTPClient
import RatingCore
import Runtime

/// What one Underlying request gave: an HTTP answer (any status), or why there was none.
public enum UnderlyingReply: Sendable {
    case answered(status: Int, body: [UInt8], retryAfter: String?)
    case timedOut
    case unreachable
    /// `UNDERLYING_URL=off`: no request was made.
    case notConfigured
}

/// The sibling Underlying service (`UNDERLYING_URL`): stored Prism and Situate summaries, the TabICL peer forecast,
/// the analysis snapshot and its charts. Read-only: nothing here triggers a build. The typed helpers return nil on
/// any non-200, timeout or garbage; `send` gives the raw answer to the routes that pass it through.
public struct UnderlyingClient: Sendable {
    public static let defaultBaseURL = "https://underlying-terminal-production.up.railway.app"
    /// A larger answer (a runaway chart) fails the request instead of filling memory.
    public static let maxResponseBytes = 8 << 20

    /// Nil when the service is switched off.
    public let baseURL: String?
    private let http: HTTPClient
    private let logger: Logger

    public init(baseURL: String? = UnderlyingClient.defaultBaseURL, http: HTTPClient, logger: Logger) {
        var base = baseURL
        while base?.hasSuffix("/") == true { base?.removeLast() }
        self.baseURL = base
        self.http = http
        self.logger = logger
    }

    /// `UNDERLYING_URL` (default the production service; `off` switches it off).
    public static func fromEnvironment(_ env: Environment, http: HTTPClient, logger: Logger)
        -> UnderlyingClient
    {
        let url = env.get("UNDERLYING_URL", default: defaultBaseURL)
        return UnderlyingClient(baseURL: url.lowercased() == "off" ? nil : url, http: http, logger: logger)
    }

    /// `GET /api/tabular/peer-forecast/<T>?horizon=3`: used only when `available` is true and `bucket` is set.
    public func peerForecast(_ ticker: String, timeout: Duration) async -> PeerForecast? {
        guard
            let body = await ok(
                "/api/tabular/peer-forecast/\(Self.segment(ticker))?horizon=3", kind: "peer_forecast", timeout: timeout),
            let forecast = try? JSONDecoder().decode(PeerForecast.self, from: Data(body)), forecast.available == true,
            let bucket = forecast.bucket, !bucket.trimmingCharacters(in: .whitespaces).isEmpty
        else { return nil }
        return forecast
    }

    /// `GET /api/prism/<T>/summary`: nil unless it carries a recommendation or a one-line view.
    public func prism(_ ticker: String, timeout: Duration) async -> PrismSummary? {
        guard let body = await ok(Self.summaryPath(.prism, ticker), kind: "prism", timeout: timeout),
            let summary = try? JSONDecoder().decode(PrismSummary.self, from: Data(body)),
            summary.recommendation != nil || summary.oneLine != nil
        else { return nil }
        return summary
    }

    /// `GET /api/situate/<T>/summary`: nil unless it carries a posture or a one-line view.
    public func situate(_ ticker: String, timeout: Duration) async -> SituateSummary? {
        guard let body = await ok(Self.summaryPath(.situate, ticker), kind: "situate", timeout: timeout),
            let summary = try? JSONDecoder().decode(SituateSummary.self, from: Data(body)),
            summary.posture != nil || summary.oneLine != nil
        else { return nil }
        return summary
    }

    /// `/api/<engine>/<T>/summary`.
    public static func summaryPath(_ engine: ResearchEngine, _ ticker: String) -> String {
        "/api/\(engine.rawValue)/\(segment(ticker))/summary"
    }

    /// The service's URL for `path` (the base URL is empty when switched off).
    public func url(_ path: String) -> String { (baseURL ?? "") + path }

    /// One request to the service (JSON body for POST), counted by `kind` and outcome.
    public func send(
        _ path: String, method: String = "GET", json body: [UInt8]? = nil, kind: String, timeout: Duration
    ) async -> UnderlyingReply {
        guard let baseURL else { return .notConfigured }
        var request = HTTPClientRequest(method: method, url: baseURL + path, headers: [("Accept", "application/json")])
        if let body {
            request.body = body
            request.headers.append(("Content-Type", "application/json"))
        }
        request.timeout = timeout
        request.connectTimeout = min(request.connectTimeout, timeout)
        request.maxResponseBytes = Self.maxResponseBytes
        let reply: UnderlyingReply
        var outcome = "ok"
        do {
            let response = try await http.execute(request)
            if response.status != 200 { outcome = "http_error" }
            reply = .answered(status: response.status, body: response.body, retryAfter: response.headers["Retry-After"])
        } catch {
            let timedOut = error.kind == .timeout || error.kind == .cancelled
            outcome = timedOut ? "timeout" : "network_error"
            reply = timedOut ? .timedOut : .unreachable
        }
        MetricsRegistry.shared.counter(
            "underlying_requests_total", help: "Underlying service requests",
            labels: ["kind": kind, "outcome": outcome]
        ).increment()
        return reply
    }

    private func ok(_ path: String, kind: String, timeout: Duration) async -> [UInt8]? {
        guard case .answered(200, let body, _) = await send(path, kind: kind, timeout: timeout) else { return nil }
        return body
    }

    /// `ticker` percent-encoded for a path segment.
    public static func segment(_ ticker: String) -> String {
        ticker.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: ".-_")))
            ?? ticker
    }
}
