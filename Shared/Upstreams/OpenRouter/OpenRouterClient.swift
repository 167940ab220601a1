import Contracts
import HTTPClient
import Runtime

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// JSON chat completions over OpenRouter (`POST <base>/chat/completions`, docs/COMPATIBILITY.md#openrouter), with a
/// model cascade.
///
/// Each model is tried in order; a non-2xx, a timeout, an empty content or content without a valid JSON object
/// of the requested shape moves on to the next. Usage is logged as cost telemetry; prompts, images and model
/// output are never logged.
public struct OpenRouterClient: Sendable {
    public static let defaultBaseURL = "https://openrouter.ai/api/v1"

    public let baseURL: String
    private let apiKey: String?
    private let http: HTTPClient
    private let logger: Logger

    public init(
        baseURL: String = OpenRouterClient.defaultBaseURL, apiKey: String?, http: HTTPClient,
        logger: Logger
    ) {
        self.baseURL = baseURL
        self.apiKey = apiKey.flatMap { $0.isEmpty ? nil : $0 }
        self.http = http
        self.logger = logger
    }

    /// `OPENROUTER_BASE_URL` (default https://openrouter.ai/api/v1) and `OPENROUTER_API_KEY`.
    public static func fromEnvironment(
        _ env: Environment, http: HTTPClient, logger: Logger
    ) -> OpenRouterClient {
        OpenRouterClient(
            baseURL: env.get("OPENROUTER_BASE_URL", default: defaultBaseURL), apiKey: env.get("OPENROUTER_API_KEY"),
            http: http, logger: logger)
    }

    /// True when a key is configured (calls will be made).
    public var isConfigured: Bool { apiKey != nil }

    /// The first model's answer that parses as a JSON object.
    public func chatJSON(
        models: [String], system: String, user: UserContent, temperature: Double? = nil,
        timeoutPerModel: Duration = .seconds(20), deadline: ContinuousClock.Instant? = nil, feature: String = "chat"
    ) async -> ChatJSONOutcome<[String: JSONValue]> {
        await chatJSON(
            decoding: [String: JSONValue].self, models: models, system: system, user: user, temperature: temperature,
            timeoutPerModel: timeoutPerModel, deadline: deadline, feature: feature)
    }

    /// The first model's answer that decodes as `T` and passes `accept`.
    ///
    /// - Parameters:
    ///   - timeoutPerModel: time allowed for each model's request.
    ///   - deadline: optional end of the whole cascade; each model gets at most what is left.
    ///   - feature: a short bounded label (`vision`, `comparables`, …) for logs and metrics.
    public func chatJSON<T: Decodable & Sendable>(
        decoding type: T.Type, models: [String], system: String, user: UserContent, temperature: Double? = nil,
        timeoutPerModel: Duration = .seconds(20), deadline: ContinuousClock.Instant? = nil, feature: String = "chat",
        accept: @Sendable (T) -> Bool = { _ in true }
    ) async -> ChatJSONOutcome<T> {
        guard let apiKey else {
            logger.debug(
                "openrouter call skipped: OPENROUTER_API_KEY is not set", [LogKeys.openrouterFeature: .string(feature)])
            return .noAPIKey
        }
        var failures: [ChatModelFailure] = []
        for (index, model) in models.enumerated() {
            var timeout = timeoutPerModel
            if let deadline {
                let left = deadline - ContinuousClock.now
                guard left >= .milliseconds(10) else {  // less is not worth a request
                    failures += models[index...].map { ChatModelFailure(model: $0, reason: .deadlineExceeded) }
                    break
                }
                timeout = min(timeout, left)
            }
            let start = ContinuousClock.now
            let attempt = await complete(
                model: model, apiKey: apiKey, system: system, user: user, temperature: temperature, timeout: timeout)
            let elapsed = ContinuousClock.now - start
            switch attempt {
            case .failure(let reason):
                failures.append(ChatModelFailure(model: model, reason: reason))
                record(model: model, feature: feature, outcome: reason.label, elapsed: elapsed, usage: nil)
            case .success(let (content, usage)):
                let decoded = extractJSONObject(content).flatMap { try? JSONDecoder().decode(T.self, from: Data($0)) }
                guard let value = decoded else {
                    failures.append(ChatModelFailure(model: model, reason: .invalidJSON))
                    record(model: model, feature: feature, outcome: "invalid_json", elapsed: elapsed, usage: usage)
                    continue
                }
                guard accept(value) else {
                    failures.append(ChatModelFailure(model: model, reason: .rejected))
                    record(model: model, feature: feature, outcome: "rejected", elapsed: elapsed, usage: usage)
                    continue
                }
                record(model: model, feature: feature, outcome: "ok", elapsed: elapsed, usage: usage)
                return .answered(ChatJSONResult(value: value, modelUsed: model, usage: usage))
            }
        }
        logger.warning(
            "openrouter cascade failed",
            [
                LogKeys.openrouterFeature: .string(feature),
                LogKeys.openrouterFailures: .string(failures.map(\.description).joined(separator: ", ")),
            ])
        return .allModelsFailed(failures)
    }

    // MARK: - Internals

    private var endpoint: String {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/chat/completions"
    }

    /// One model: the content string and usage, or why not.
    private func complete(
        model: String, apiKey: String, system: String, user: UserContent, temperature: Double?, timeout: Duration
    ) async -> Result<(String, ChatUsage?), ChatModelFailure.Reason> {
        let body = ChatRequestBody(model: model, temperature: temperature, system: system, user: user)
        guard let bytes = try? JSONEncoder().encode(body) else { return .failure(.invalidJSON) }
        var request = HTTPClientRequest(url: endpoint)
        request.method = "POST"
        request.headers = [
            ("Authorization", "Bearer \(apiKey)"), ("Content-Type", "application/json"),
            ("Accept", "application/json"), ("HTTP-Referer", "https://mapvest.app"), ("X-Title", "Mapvest"),
        ]
        request.body = Array(bytes)
        request.timeout = timeout
        request.connectTimeout = min(request.connectTimeout, timeout)
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request)
        } catch {
            return .failure(error.kind == .timeout || error.kind == .cancelled ? .timeout : .network)
        }
        guard (200..<300).contains(response.status) else { return .failure(.httpStatus(response.status)) }
        guard let decoded = try? JSONDecoder().decode(ChatResponseBody.self, from: Data(response.body)) else {
            return .failure(.emptyContent)
        }
        guard let content = decoded.choices?.first?.message?.content?.text,
            content.contains(where: { !$0.isWhitespace })
        else { return .failure(.emptyContent) }
        return .success((content, decoded.usage?.usage))
    }

    private func record(model: String, feature: String, outcome: String, elapsed: Duration, usage: ChatUsage?) {
        MetricsRegistry.shared.counter(
            MetricNames.openRouterRequests, help: "OpenRouter chat requests by model and outcome",
            labels: ["model": model, "outcome": outcome]
        ).increment()
        var fields: [String: LogValue] = [
            LogKeys.openrouterModel: .string(model), LogKeys.openrouterFeature: .string(feature),
            LogKeys.openrouterOutcome: .string(outcome), LogKeys.durationMs: .int(Int(elapsed.inMilliseconds)),
        ]
        if let usage {
            fields[LogKeys.tokensPrompt] = .int(usage.promptTokens)
            fields[LogKeys.tokensCompletion] = .int(usage.completionTokens)
            fields[LogKeys.tokensTotal] = .int(usage.totalTokens)
            let registry = MetricsRegistry.shared
            if let cost = usage.cost {
                fields[LogKeys.costCredits] = .double(cost)
                // OpenRouter reports credits in USD; out-of-range values are not counted.
                if cost.isFinite, (0...1_000).contains(cost) {
                    registry.counter(
                        MetricNames.openRouterCostMicroUSD, help: "OpenRouter-reported cost by model, in micro-USD",
                        labels: ["model": model]
                    ).increment(by: Int64((cost * 1_000_000).rounded()))
                }
            }
            registry.counter(
                MetricNames.openRouterTokens, help: "OpenRouter tokens by model and kind",
                labels: ["model": model, "kind": "prompt"]
            ).increment(by: Int64(usage.promptTokens))
            registry.counter(
                MetricNames.openRouterTokens, help: "OpenRouter tokens by model and kind",
                labels: ["model": model, "kind": "completion"]
            ).increment(by: Int64(usage.completionTokens))
        }
        if outcome == "ok" {
            logger.info("openrouter usage", fields)
        } else {
            logger.warning("openrouter model failed; trying next", fields)
        }
    }
}

// MARK: - Wire types

private struct ChatRequestBody: Encodable {
    var model: String
    var temperature: Double?
    var system: String
    var user: UserContent

    private enum Keys: String, CodingKey { case model, responseFormat = "response_format", temperature, messages }
    private enum MessageKeys: String, CodingKey { case role, content }
    private enum PartKeys: String, CodingKey { case type, text, imageURL = "image_url" }
    private enum ImageKeys: String, CodingKey { case url }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(model, forKey: .model)
        try c.encode(["type": "json_object"], forKey: .responseFormat)
        try c.encodeIfPresent(temperature, forKey: .temperature)
        var messages = c.nestedUnkeyedContainer(forKey: .messages)
        var systemMessage = messages.nestedContainer(keyedBy: MessageKeys.self)
        try systemMessage.encode("system", forKey: .role)
        try systemMessage.encode(system, forKey: .content)
        var userMessage = messages.nestedContainer(keyedBy: MessageKeys.self)
        try userMessage.encode("user", forKey: .role)
        switch user {
        case .text(let text):
            try userMessage.encode(text, forKey: .content)
        case .textAndImage(let text, let imageURL):
            var parts = userMessage.nestedUnkeyedContainer(forKey: .content)
            var textPart = parts.nestedContainer(keyedBy: PartKeys.self)
            try textPart.encode("text", forKey: .type)
            try textPart.encode(text, forKey: .text)
            var imagePart = parts.nestedContainer(keyedBy: PartKeys.self)
            try imagePart.encode("image_url", forKey: .type)
            var image = imagePart.nestedContainer(keyedBy: ImageKeys.self, forKey: .imageURL)
            try image.encode(imageURL, forKey: .url)
        }
    }
}

private struct ChatResponseBody: Decodable {
    struct Choice: Decodable { var message: Message? }
    struct Message: Decodable { var content: Content? }
    /// A string, or (some providers) an array of `{type:"text", text}` parts.
    struct Content: Decodable {
        var text: String
        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let s = try? c.decode(String.self) {
                text = s
            } else {
                struct Part: Decodable { var text: String? }
                text = try c.decode([Part].self).compactMap(\.text).joined()
            }
        }
    }
    struct Usage: Decodable {
        var promptTokens: Int?
        var completionTokens: Int?
        var totalTokens: Int?
        var cost: Double?
        enum CodingKeys: String, CodingKey {
            case promptTokens = "prompt_tokens", completionTokens = "completion_tokens", totalTokens = "total_tokens"
            case cost
        }
        var usage: ChatUsage {
            let p = promptTokens ?? 0
            let c = completionTokens ?? 0
            return ChatUsage(promptTokens: p, completionTokens: c, totalTokens: totalTokens ?? p + c, cost: cost)
        }
    }

    var choices: [Choice]?
    var usage: Usage?

    private enum Keys: String, CodingKey { case choices, usage }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        choices = try? c.decodeIfPresent([Choice].self, forKey: .choices)
        usage = try? c.decodeIfPresent(Usage.self, forKey: .usage)
    }
}
