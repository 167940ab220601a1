import Contracts
import Foundation
import HTTPClient
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

/// The TabICL v2 sector peer forecast (fields beyond `available` and `bucket` optional).
public struct PeerForecast: Decodable, Sendable, Equatable {
    public var available: Bool?
    public var bucket: String?
    public var probabilities: [String: Double]?
    var expectedExcessReturn: Double?
    public var confidence: Double?

    enum CodingKeys: String, CodingKey {
        case available, bucket, probabilities, confidence
        case expectedExcessReturn = "expected_excess_return"
    }

    public init(
        available: Bool?, bucket: String?, probabilities: [String: Double]? = nil, expectedExcessReturn: Double? = nil,
        confidence: Double? = nil
    ) {
        self.available = available
        self.bucket = bucket
        self.probabilities = probabilities
        self.expectedExcessReturn = expectedExcessReturn
        self.confidence = confidence
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        available = try? c.decodeIfPresent(Bool.self, forKey: .available)
        bucket = try? c.decodeIfPresent(String.self, forKey: .bucket)
        probabilities = (try? c.decodeIfPresent([String: Double?].self, forKey: .probabilities))?
            .flatMap { $0.compactMapValues { $0.flatMap { $0.isFinite ? $0 : nil } } }
        expectedExcessReturn = (try? c.decodeIfPresent(Double.self, forKey: .expectedExcessReturn)).flatMap { $0 }
        confidence = (try? c.decodeIfPresent(Double.self, forKey: .confidence)).flatMap { $0 }
    }
}

/// The stored Prism projection (`PrismSummary`): its recommendation, one-line view, scenario split and regime.
public struct PrismSummary: Decodable, Sendable, Equatable {
    public struct Recommendation: Decodable, Sendable, Equatable {
        public var action: String
        public var strength: String?
        public var conviction: Double?
        public var oneLine: String?

        enum CodingKeys: String, CodingKey {
            case action, strength, conviction
            case oneLine = "one_line"
        }
    }
    public var recommendation: Recommendation?
    public var oneLine: String?
    public var bull: Double?
    public var neutral: Double?
    public var bear: Double?
    public var regime: String?

    enum CodingKeys: String, CodingKey {
        case recommendation, bull, neutral, bear, regime, split, scenarios
        case oneLine = "one_line"
    }

    private struct Split: Decodable {
        var bull: Double?
        var neutral: Double?
        var bear: Double?
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        recommendation = (try? c.decodeIfPresent(Recommendation.self, forKey: .recommendation)).flatMap { $0 }
        oneLine = (try? c.decodeIfPresent(String.self, forKey: .oneLine)).flatMap { $0 }
        let split =
            (try? c.decodeIfPresent(Split.self, forKey: .split)).flatMap { $0 }
            ?? (try? c.decodeIfPresent(Split.self, forKey: .scenarios)).flatMap { $0 }
        bull = (try? c.decodeIfPresent(Double.self, forKey: .bull)).flatMap { $0 } ?? split?.bull
        neutral = (try? c.decodeIfPresent(Double.self, forKey: .neutral)).flatMap { $0 } ?? split?.neutral
        bear = (try? c.decodeIfPresent(Double.self, forKey: .bear)).flatMap { $0 } ?? split?.bear
        regime = (try? c.decodeIfPresent(String.self, forKey: .regime)).flatMap { $0 }
    }
}

/// The stored Situate projection (`SituateSummary`): its posture and one-line view.
public struct SituateSummary: Decodable, Sendable, Equatable {
    public struct Posture: Decodable, Sendable, Equatable {
        public var stance: String
        public var horizon: String?
        public var conviction: Double?
        public var oneLine: String?

        enum CodingKeys: String, CodingKey {
            case stance, horizon, conviction
            case oneLine = "one_line"
        }
    }
    public var posture: Posture?
    public var oneLine: String?

    enum CodingKeys: String, CodingKey {
        case posture
        case oneLine = "one_line"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        posture = (try? c.decodeIfPresent(Posture.self, forKey: .posture)).flatMap { $0 }
        oneLine = (try? c.decodeIfPresent(String.self, forKey: .oneLine)).flatMap { $0 }
    }
}
