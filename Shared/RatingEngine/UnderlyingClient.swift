import Foundation
import HTTPClient
import Runtime

/// The sibling Underlying service (`UNDERLYING_URL`): stored Prism and Situate summaries and the TabICL peer
/// forecast. Read-only: nothing here triggers a build. Every call returns nil on any non-200, timeout or garbage.
public struct UnderlyingClient: Sendable {
    public static let defaultBaseURL = "https://underlying-terminal-production.up.railway.app"

    public let baseURL: String
    private let http: HTTPClient
    private let logger: Logger

    public init(baseURL: String = UnderlyingClient.defaultBaseURL, http: HTTPClient = .shared, logger: Logger) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.http = http
        self.logger = logger
    }

    /// `UNDERLYING_URL` (default the production service).
    public static func fromEnvironment(_ env: Environment, http: HTTPClient = .shared, logger: Logger) -> UnderlyingClient {
        UnderlyingClient(baseURL: env.get("UNDERLYING_URL", default: defaultBaseURL), http: http, logger: logger)
    }

    /// `GET /api/tabular/peer-forecast/<T>?horizon=3`: used only when `available` is true and `bucket` is set.
    public func peerForecast(_ ticker: String, timeout: Duration) async -> PeerForecast? {
        guard let body = await get("/api/tabular/peer-forecast/\(Self.segment(ticker))?horizon=3", kind: "peer_forecast", timeout: timeout),
            let forecast = try? JSONDecoder().decode(PeerForecast.self, from: Data(body)), forecast.available == true,
            let bucket = forecast.bucket, !bucket.trimmingCharacters(in: .whitespaces).isEmpty
        else { return nil }
        return forecast
    }

    /// `GET /api/prism/<T>/summary`: nil unless it carries a recommendation or a one-line view.
    public func prism(_ ticker: String, timeout: Duration) async -> PrismSummary? {
        guard let body = await get("/api/prism/\(Self.segment(ticker))/summary", kind: "prism", timeout: timeout),
            let summary = try? JSONDecoder().decode(PrismSummary.self, from: Data(body)),
            summary.recommendation != nil || summary.oneLine != nil
        else { return nil }
        return summary
    }

    /// `GET /api/situate/<T>/summary`: nil unless it carries a posture or a one-line view.
    public func situate(_ ticker: String, timeout: Duration) async -> SituateSummary? {
        guard let body = await get("/api/situate/\(Self.segment(ticker))/summary", kind: "situate", timeout: timeout),
            let summary = try? JSONDecoder().decode(SituateSummary.self, from: Data(body)),
            summary.posture != nil || summary.oneLine != nil
        else { return nil }
        return summary
    }

    public func url(_ path: String) -> String { baseURL + path }

    private func get(_ path: String, kind: String, timeout: Duration) async -> [UInt8]? {
        var request = HTTPClientRequest(url: baseURL + path, headers: [("Accept", "application/json")])
        request.timeout = timeout
        request.connectTimeout = min(request.connectTimeout, timeout)
        var outcome = "ok"
        var body: [UInt8]?
        do {
            let response = try await http.execute(request)
            if response.status == 200 { body = response.body } else { outcome = "http_error" }
        } catch {
            outcome = error.kind == .timeout || error.kind == .cancelled ? "timeout" : "network_error"
        }
        MetricsRegistry.shared.counter(
            "underlying_requests_total", help: "Underlying service requests", labels: ["kind": kind, "outcome": outcome]
        ).increment()
        return body
    }

    static func segment(_ ticker: String) -> String {
        ticker.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: ".-_"))) ?? ticker
    }
}

/// The TabICL v2 sector peer forecast (fields beyond `available` and `bucket` optional).
public struct PeerForecast: Decodable, Sendable, Equatable {
    public var available: Bool?
    public var bucket: String?
    public var probabilities: [String: Double]?
    public var expectedExcessReturn: Double?
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
