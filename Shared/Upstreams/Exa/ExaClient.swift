import Contracts
import HTTPClient
import Runtime

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One search result: `snippet` is `highlights[0]`, else `text`, else `snippet`, cut to the requested length.
public struct ExaHit: Sendable, Equatable {
    public var title: String
    public var url: String
    public var snippet: String?
    public var publishedDate: String?

    public init(title: String, url: String, snippet: String? = nil, publishedDate: String? = nil) {
        self.title = title
        self.url = url
        self.snippet = snippet
        self.publishedDate = publishedDate
    }
}

/// An article's text from `/contents`.
public struct ExaDocument: Sendable, Equatable {
    public var url: String
    public var title: String?
    public var text: String
    public var publishedDate: String?

    public init(url: String, title: String? = nil, text: String, publishedDate: String? = nil) {
        self.url = url
        self.title = title
        self.text = text
        self.publishedDate = publishedDate
    }
}

/// How an Exa call went. Callers mostly ignore it: any failure comes with empty results.
public enum ExaStatus: Sendable, Equatable {
    case ok
    /// `EXA_API_KEY` is not set; no request was made.
    case noAPIKey
    case httpError(Int)
    case timeout
    case network
    case invalidResponse

    /// Bounded label for logs and metrics.
    public var label: String {
        switch self {
        case .ok: "ok"
        case .noAPIKey: "no_api_key"
        case .httpError: "http_error"
        case .timeout: "timeout"
        case .network: "network_error"
        case .invalidResponse: "invalid_response"
        }
    }
}

/// `/search` hits (empty on any failure) and the call's status.
public struct ExaSearchResponse: Sendable, Equatable {
    public var hits: [ExaHit]
    public var status: ExaStatus

    public init(hits: [ExaHit], status: ExaStatus) {
        self.hits = hits
        self.status = status
    }
}

/// `/contents` document (nil on any failure or when Exa had none) and the call's status.
public struct ExaContentsResponse: Sendable, Equatable {
    public var document: ExaDocument?
    public var status: ExaStatus

    public init(document: ExaDocument?, status: ExaStatus) {
        self.document = document
        self.status = status
    }
}

/// Client for Exa web search (`POST <base>/search`, `POST <base>/contents`, docs/COMPATIBILITY.md#exa).
/// Never throws; queries and article text are never logged.
public struct ExaClient: Sendable {
    public static let defaultBaseURL = "https://api.exa.ai"
    /// The contract's snippet length.
    public static let defaultSnippetLength = 240

    public let baseURL: String
    /// Request timeout when a call does not give one. Default 10 s.
    public let timeout: Duration
    private let apiKey: String?
    private let http: HTTPClient
    private let logger: Logger

    public init(
        baseURL: String = ExaClient.defaultBaseURL, apiKey: String?, timeout: Duration = .seconds(10),
        http: HTTPClient, logger: Logger
    ) {
        self.baseURL = baseURL
        self.apiKey = apiKey.flatMap { $0.isEmpty ? nil : $0 }
        self.timeout = timeout
        self.http = http
        self.logger = logger
    }

    /// `EXA_BASE_URL` (default https://api.exa.ai) and `EXA_API_KEY`.
    public static func fromEnvironment(
        _ env: Environment, http: HTTPClient, logger: Logger
    ) -> ExaClient {
        ExaClient(
            baseURL: env.get("EXA_BASE_URL", default: defaultBaseURL), apiKey: env.get("EXA_API_KEY"), http: http,
            logger: logger)
    }

    /// True when a key is configured (calls will be made).
    public var isConfigured: Bool { apiKey != nil }

    /// `/search` with `useAutoprompt: true` and one highlight of `highlightSentences` sentences per URL.
    /// The contract's brand lookup is `numResults: 8, highlightSentences: 2`; enrichment is `5, 1`.
    public func search(
        query: String, numResults: Int = 5, highlightSentences: Int = 1,
        snippetLength: Int = ExaClient.defaultSnippetLength, timeout: Duration? = nil
    ) async -> ExaSearchResponse {
        let body = SearchBody(
            query: query, numResults: min(max(numResults, 1), 100),
            contents: .init(highlights: .init(numSentences: min(max(highlightSentences, 1), 10), highlightsPerUrl: 1)))
        switch await post("/search", body, as: ResultsBody.self, timeout: timeout ?? self.timeout) {
        case .failure(let failure):
            return ExaSearchResponse(hits: [], status: failure.status)
        case .success(let decoded):
            let limit = max(0, snippetLength)
            let hits = (decoded.results ?? []).compactMap { r -> ExaHit? in
                // A citation must be a web URL; anything else is dropped.
                guard let url = r.url?.trimmed,
                    url.lowercased().hasPrefix("https://") || url.lowercased().hasPrefix("http://")
                else { return nil }
                let snippet = [r.highlights?.first, r.text, r.snippet].lazy.compactMap { $0 }
                    .first { $0.contains(where: { !$0.isWhitespace }) }
                    .map { String($0.prefix(limit)) }
                return ExaHit(title: r.title?.trimmed ?? "", url: url, snippet: snippet, publishedDate: r.publishedDate)
            }
            return ExaSearchResponse(hits: hits, status: .ok)
        }
    }

    /// `/contents` for one URL with its full text.
    public func contents(url: String, timeout: Duration? = nil) async -> ExaContentsResponse {
        switch await post("/contents", ContentsBody(ids: [url]), as: ResultsBody.self, timeout: timeout ?? self.timeout)
        {
        case .failure(let failure):
            return ExaContentsResponse(document: nil, status: failure.status)
        case .success(let decoded):
            guard let r = decoded.results?.first else { return ExaContentsResponse(document: nil, status: .ok) }
            let document = ExaDocument(
                url: r.url?.trimmed.nilIfEmpty ?? url, title: r.title?.trimmed.nilIfEmpty,
                text: r.text?.trimmed ?? "", publishedDate: r.publishedDate)
            return ExaContentsResponse(document: document, status: .ok)
        }
    }

    /// A citation for `hit`: provider `exa`, fetched now.
    public func source(for hit: ExaHit, confidence: Confidence) -> Source {
        Source(provider: .exa, url: hit.url, fetchedAt: Timestamp.iso8601(Date()), confidence: confidence)
    }

    // MARK: - Internals

    private func post<Body: Encodable, Response: Decodable>(
        _ path: String, _ body: Body, as: Response.Type, timeout: Duration
    ) async -> Result<Response, ExaFailure> {
        guard let apiKey else {
            Self.count(path: path, .noAPIKey)
            logger.debug("exa call skipped: EXA_API_KEY is not set", [LogKeys.exaPath: .string(path)])
            return .failure(ExaFailure(.noAPIKey))
        }
        let start = ContinuousClock.now
        let result = await send(path, body, as: Response.self, apiKey: apiKey, timeout: timeout)
        let status: ExaStatus
        switch result {
        case .success: status = .ok
        case .failure(let f): status = f.status
        }
        Self.count(path: path, status)
        var fields: [String: LogValue] = [
            LogKeys.exaPath: .string(path), LogKeys.exaOutcome: .string(status.label),
            LogKeys.durationMs: .int(Int((ContinuousClock.now - start).inMilliseconds)),
        ]
        if case .httpError(let code) = status { fields[LogKeys.httpStatus] = .int(code) }
        if status == .ok {
            logger.debug("exa call", fields)
        } else {
            logger.warning("exa call failed", fields)
        }
        return result
    }

    private func send<Body: Encodable, Response: Decodable>(
        _ path: String, _ body: Body, as: Response.Type, apiKey: String, timeout: Duration
    ) async -> Result<Response, ExaFailure> {
        guard let bytes = try? JSONEncoder().encode(body) else { return .failure(ExaFailure(.invalidResponse)) }
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        var request = HTTPClientRequest(url: base + path)
        request.method = "POST"
        request.headers = [("x-api-key", apiKey), ("Content-Type", "application/json"), ("Accept", "application/json")]
        request.body = Array(bytes)
        request.timeout = timeout
        request.connectTimeout = min(request.connectTimeout, timeout)
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request)
        } catch {
            return .failure(ExaFailure(error.kind == .timeout || error.kind == .cancelled ? .timeout : .network))
        }
        guard (200..<300).contains(response.status) else { return .failure(ExaFailure(.httpError(response.status))) }
        guard let decoded = try? JSONDecoder().decode(Response.self, from: Data(response.body)) else {
            return .failure(ExaFailure(.invalidResponse))
        }
        return .success(decoded)
    }

    private static func count(path: String, _ status: ExaStatus) {
        MetricsRegistry.shared.counter(
            MetricNames.exaRequests, help: "Exa calls by endpoint and outcome",
            labels: ["endpoint": path, "outcome": status.label]
        ).increment()
    }
}

struct ExaFailure: Error {
    var status: ExaStatus
    init(_ status: ExaStatus) { self.status = status }
}

// MARK: - Wire types

private struct SearchBody: Encodable {
    struct Contents: Encodable { var highlights: Highlights }
    struct Highlights: Encodable {
        var numSentences: Int
        var highlightsPerUrl: Int
    }
    var query: String
    var numResults: Int
    var useAutoprompt = true
    var contents: Contents
}

private struct ContentsBody: Encodable {
    var ids: [String]
    var text = true
}

private struct ResultsBody: Decodable {
    struct Result: Decodable {
        var title: String?
        var url: String?
        var highlights: [String]?
        var text: String?
        var snippet: String?
        var publishedDate: String?

        private enum Keys: String, CodingKey { case title, url, highlights, text, snippet, publishedDate }

        /// Tolerant: a field of an unexpected type is treated as absent.
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            title = try? c.decodeIfPresent(String.self, forKey: .title)
            url = try? c.decodeIfPresent(String.self, forKey: .url)
            highlights = try? c.decodeIfPresent([String].self, forKey: .highlights)
            text = try? c.decodeIfPresent(String.self, forKey: .text)
            snippet = try? c.decodeIfPresent(String.self, forKey: .snippet)
            publishedDate = try? c.decodeIfPresent(String.self, forKey: .publishedDate)
        }
    }
    var results: [Result]?
}

extension String {
    fileprivate var trimmed: String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }

    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
