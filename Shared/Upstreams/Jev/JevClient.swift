import Foundation
import HTTPClient
import Runtime

/// Client for Jev "System 1" (`POST <base>/v1/systemone`, docs/COMPATIBILITY.md#jev).
///
/// Never throws: every call returns `Result<JevAnswers, JevFailure>`. The key is read at each call (absent →
/// `.noAPIKey`, no request). Only 429/529 are retried (3 attempts, 250 ms × 2^(n−1) apart); a timeout or a
/// transport error fails at once. Neither the key nor the state nor the questions are ever logged.
public struct JevClient: Sendable {
    public static let defaultBaseURL = "https://api.typesafe.ai"
    public static let model = "jev-latest"

    public let baseURL: String
    /// Time allowed per HTTP attempt. Default 8 s.
    public let attemptTimeout: Duration
    /// Total attempts when the answer is 429/529. Default 3.
    public let maxAttempts: Int
    /// First retry delay; doubles each retry. Default 250 ms.
    public let retryBackoff: Duration
    private let apiKey: @Sendable () -> String?
    private let http: HTTPClient
    private let logger: Logger

    /// - Parameter apiKey: called at every request; nil or empty means no key.
    public init(
        baseURL: String = JevClient.defaultBaseURL, apiKey: @escaping @Sendable () -> String?,
        attemptTimeout: Duration = .seconds(8), maxAttempts: Int = 3, retryBackoff: Duration = .milliseconds(250),
        http: HTTPClient, logger: Logger
    ) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.attemptTimeout = attemptTimeout
        self.maxAttempts = max(1, maxAttempts)
        self.retryBackoff = retryBackoff
        self.http = http
        self.logger = logger
    }

    /// A client with a fixed key (nil = none).
    public init(
        baseURL: String = JevClient.defaultBaseURL, apiKey: String?, attemptTimeout: Duration = .seconds(8),
        maxAttempts: Int = 3, retryBackoff: Duration = .milliseconds(250), http: HTTPClient,
        logger: Logger
    ) {
        self.init(
            baseURL: baseURL, apiKey: { apiKey }, attemptTimeout: attemptTimeout, maxAttempts: maxAttempts,
            retryBackoff: retryBackoff, http: http, logger: logger)
    }

    /// `JEV_BASE_URL` (default https://api.typesafe.ai); `JEV_API_KEY` read from `env` at each call.
    public static func fromEnvironment(
        _ env: Environment, http: HTTPClient, logger: Logger
    ) -> JevClient {
        JevClient(
            baseURL: env.get("JEV_BASE_URL", default: defaultBaseURL), apiKey: { env.get("JEV_API_KEY") },
            http: http, logger: logger)
    }

    /// One `systemone` request carrying every question.
    ///
    /// - Parameters:
    ///   - state: any JSON-encodable context (a string, an object or an array).
    ///   - overallTimeout: optional cap on the whole call, retries included; each attempt gets the smaller of
    ///     `attemptTimeout` and what is left.
    public func ask<State: Encodable & Sendable>(
        state: State, questions: [String: JevQuestion], overallTimeout: Duration? = nil
    ) async -> Result<JevAnswers, JevFailure> {
        guard let key = apiKey()?.trimmingCharacters(in: .whitespaces), !key.isEmpty else {
            Self.count("no_api_key")
            return .failure(.noAPIKey)
        }
        let body: [UInt8]
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.withoutEscapingSlashes]
            body = Array(try encoder.encode(JevRequestBody(state: state, model: Self.model, questions: questions)))
        } catch {
            // Only an unencodable caller-supplied state gets here; its content is not logged.
            logger.error("jev request could not be encoded", [LogKeys.jevQuestions: .int(questions.count)])
            return .failure(.invalidResponse)
        }

        let start = ContinuousClock.now
        let deadline = overallTimeout.map { start.advanced(by: $0) }
        var attempt = 1
        var result: Result<JevAnswers, JevFailure>
        while true {
            var timeout = attemptTimeout
            if let deadline {
                let left = deadline - ContinuousClock.now
                guard left >= .milliseconds(10) else {  // less is not worth a request
                    result = .failure(.timeout)
                    break
                }
                timeout = min(timeout, left)
            }
            result = await attemptOnce(key: key, body: body, timeout: timeout)
            guard case .failure(.rateLimited(let status)) = result, attempt < maxAttempts else { break }
            let delay = retryBackoff * (1 << (attempt - 1))
            if let deadline, ContinuousClock.now.advanced(by: delay) >= deadline { break }
            logger.debug(
                "jev rate limited; retrying", [LogKeys.httpStatus: .int(status), LogKeys.jevAttempt: .int(attempt)])
            try? await Task.sleep(for: delay)
            if Task.isCancelled {
                result = .failure(.timeout)
                break
            }
            attempt += 1
        }

        let elapsed = ContinuousClock.now - start
        Self.duration.observe(elapsed.inSeconds)
        switch result {
        case .success(let answers):
            Self.count("ok")
            logger.debug(
                "jev answered",
                [
                    LogKeys.jevQuestions: .int(questions.count), LogKeys.jevAttempts: .int(attempt),
                    LogKeys.tokensInput: .int(answers.usage.inputTokens),
                    LogKeys.tokensOutput: .int(answers.usage.outputTokens),
                    LogKeys.durationMs: .int(Int(elapsed.inMilliseconds)),
                ])
        case .failure(let failure):
            Self.count(failure.reason)
            var fields: [String: LogValue] = [
                LogKeys.jevReason: .string(failure.reason), LogKeys.jevQuestions: .int(questions.count),
                LogKeys.jevAttempts: .int(attempt), LogKeys.durationMs: .int(Int(elapsed.inMilliseconds)),
            ]
            if case .httpError(let s) = failure { fields[LogKeys.httpStatus] = .int(s) }
            if case .rateLimited(let s) = failure { fields[LogKeys.httpStatus] = .int(s) }
            logger.warning("jev call failed", fields)
        }
        return result
    }

    /// One `noul` question (id `q`).
    public func noul<State: Encodable & Sendable>(
        state: State, instructions: String, overallTimeout: Duration? = nil
    ) async -> Result<Double, JevFailure> {
        await ask(state: state, questions: ["q": .noul(instructions: instructions)], overallTimeout: overallTimeout)
            .flatMap { answers in answers.noul("q").map { .success($0) } ?? .failure(.invalidResponse) }
    }

    /// One `choice` question (id `q`); an answer below 0.55 confidence is `.lowConfidence`.
    public func choice<State: Encodable & Sendable>(
        state: State, instructions: String, labels: [String], overallTimeout: Duration? = nil
    ) async -> Result<JevChoiceAnswer, JevFailure> {
        await ask(
            state: state, questions: ["q": .choice(instructions: instructions, labels: labels)],
            overallTimeout: overallTimeout
        ).flatMap { answers in
            guard let a = answers.choice("q") else { return .failure(.invalidResponse) }
            return a.isConfident ? .success(a) : .failure(.lowConfidence)
        }
    }

    /// One `score` question (id `q`); an answer below 0.55 confidence is `.lowConfidence`.
    public func score<State: Encodable & Sendable>(
        state: State, instructions: String, criteria: [String], overallTimeout: Duration? = nil
    ) async -> Result<JevScoreAnswer, JevFailure> {
        await ask(
            state: state, questions: ["q": .score(instructions: instructions, criteria: criteria)],
            overallTimeout: overallTimeout
        ).flatMap { answers in
            guard let a = answers.score("q") else { return .failure(.invalidResponse) }
            return a.isConfident ? .success(a) : .failure(.lowConfidence)
        }
    }

    // MARK: - Internals

    private var endpoint: String {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/v1/systemone"
    }

    private func attemptOnce(key: String, body: [UInt8], timeout: Duration) async -> Result<JevAnswers, JevFailure> {
        var request = HTTPClientRequest(url: endpoint)
        request.method = "POST"
        request.headers = [
            ("Authorization", "Bearer \(key)"), ("Content-Type", "application/json"), ("Accept", "application/json"),
        ]
        request.body = body
        request.timeout = timeout
        request.connectTimeout = min(request.connectTimeout, timeout)
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request)
        } catch {
            // A cancelled caller has run out of budget: report it as a timeout.
            return .failure(error.kind == .timeout || error.kind == .cancelled ? .timeout : .network)
        }
        switch response.status {
        case 200..<300:
            guard let parsed = try? JSONDecoder().decode(JevResponseBody.self, from: Data(response.body)) else {
                return .failure(.invalidResponse)
            }
            return .success(JevAnswers(answers: parsed.answers, model: parsed.model, usage: parsed.usage))
        case 429, 529:
            return .failure(.rateLimited(status: response.status))
        default:
            return .failure(.httpError(status: response.status))
        }
    }

    private static let duration = MetricsRegistry.shared.histogram(
        "jev_request_duration_seconds", help: "Jev systemone calls, retries included")

    private static func count(_ outcome: String) {
        MetricsRegistry.shared.counter(
            "jev_requests_total", help: "Jev systemone calls by outcome", labels: ["outcome": outcome]
        ).increment()
    }
}

private struct JevRequestBody<State: Encodable>: Encodable {
    var state: State
    var model: String
    var questions: [String: JevQuestion]
}
