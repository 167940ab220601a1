import Contracts
import Foundation
import HTTPServer
import OpenRouter
import Runtime
import TestSupport
import Testing
import UpstreamFakes

/// An OpenRouter chat completion whose content is `content` (a JSON string literal body).
private func completion(_ content: String, model: String = "x") -> HTTPResponse {
    let escaped = JSONText.quote(content)
    return jsonResponse(
        200,
        """
        {"id":"gen-1","model":"\(model)","object":"chat.completion","choices":[{"index":0,"finish_reason":"stop",
        "message":{"role":"assistant","content":\(escaped)}}],
        "usage":{"prompt_tokens":812,"completion_tokens":64,"total_tokens":876,"cost":0.0042}}
        """)
}

/// The model named in a recorded request body.
private func model(of request: HTTPRequest) -> String? {
    (try? parseJSON(request.body))?["model"]?.string
}

private func client(_ fake: FakeUpstream, key: String? = "or-test-key", sink: LogSink = .memory()) -> OpenRouterClient {
    OpenRouterClient(baseURL: fake.baseURL, apiKey: key, http: testHTTPClient, logger: quietLogger(sink))
}

struct OpenRouterClientTests {
    @Test func cascadesPastAFailingModel() async throws {
        let sink = LogSink.memory()
        try await withFake({ request in
            model(of: request) == OpenRouterModels.gpt56Terra
                ? jsonResponse(500, #"{"error":{"message":"upstream"}}"#)
                : completion("```json\n{\"picks\":[{\"ticker\":\"NKE\",\"score\":0.9}]}\n```")
        }) { fake in
            let outcome = await client(fake, sink: sink).chatJSON(
                models: OpenRouterModels.comparables, system: "You judge comparables. SECRET-SYSTEM",
                user: .text("Evidence: SECRET-USER"), temperature: 0.1, timeoutPerModel: .seconds(5),
                feature: "comparables")
            let result = try #require(outcome.result)
            #expect(result.modelUsed == OpenRouterModels.claudeOpus48)
            #expect(result.value["picks"]?[0]?["ticker"]?.string == "NKE")
            #expect(result.usage == ChatUsage(promptTokens: 812, completionTokens: 64, totalTokens: 876, cost: 0.0042))

            let requests = fake.requests
            #expect(requests.count == 2)
            let last = try #require(requests.last)
            #expect(last.method == "POST" && last.path == "/chat/completions")
            #expect(last.headers["Authorization"] == "Bearer or-test-key")
            #expect(last.headers["HTTP-Referer"] == "https://mapvest.app")
            #expect(last.headers["X-Title"] == "Mapvest")
            let body = try parseJSON(last.body)
            #expect(body["response_format"] == .object(["type": .string("json_object")]))
            #expect(body["temperature"]?.number == 0.1)
            #expect(body["messages"]?[0]?["role"]?.string == "system")
            #expect(body["messages"]?[1]?["content"]?.string == "Evidence: SECRET-USER")
        }
        let log = sink.lines.joined()
        #expect(log.contains("\"tokens.prompt\":812"))
        #expect(!log.contains("SECRET") && !log.contains("or-test-key") && !log.contains("NKE"))
    }

    @Test func aSlowModelTimesOutAndTheNextAnswers() async throws {
        try await withFake({ request in
            if model(of: request) == "slow/model" { try? await Task.sleep(for: .milliseconds(1500)) }
            return completion(#"{"ok":true}"#)
        }) { fake in
            let start = ContinuousClock.now
            let outcome = await client(fake).chatJSON(
                models: ["slow/model", "fast/model"], system: "s", user: .text("u"),
                timeoutPerModel: .milliseconds(250))
            #expect(outcome.result?.modelUsed == "fast/model")
            #expect(ContinuousClock.now - start < .milliseconds(1400))
        }
    }

    @Test func garbageFromEveryModelFailsTheCascade() async throws {
        let calls = CallCounter()
        try await withFake({ _ in
            calls.next() == 1 ? completion("I cannot answer that.") : jsonResponse(200, "not json at all")
        }) { fake in
            let outcome = await client(fake).chatJSON(models: ["a/one", "b/two"], system: "s", user: .text("u"))
            guard case .allModelsFailed(let failures) = outcome else {
                Issue.record("expected allModelsFailed, got \(outcome)")
                return
            }
            #expect(
                failures == [
                    ChatModelFailure(model: "a/one", reason: .invalidJSON),
                    ChatModelFailure(model: "b/two", reason: .emptyContent),
                ])
        }
    }

    @Test func typedDecodingAndRejectionMoveOn() async throws {
        struct Brief: Decodable, Sendable {
            var headline: String
            var body: String
        }
        try await withFake({ request in
            model(of: request) == "a/one"
                ? completion(#"{"headline":"","body":"x"}"#)
                : completion(#"Sure! {"headline":"Markets calm","body":"Text."} Hope that helps."#)
        }) { fake in
            let outcome = await client(fake).chatJSON(
                decoding: Brief.self, models: ["a/one", "b/two"], system: "s", user: .text("u"), temperature: 0.4,
                accept: { !$0.headline.isEmpty })
            #expect(outcome.result?.value.headline == "Markets calm")
            #expect(outcome.result?.modelUsed == "b/two")
        }
    }

    @Test func visionSendsTheImageAsADataURLWithoutTemperature() async throws {
        try await withFake({ _ in completion(#"{"visibleText":[],"detected":[]}"#) }) { fake in
            let outcome = await client(fake).chatJSON(
                models: OpenRouterModels.vision, system: "s",
                user: .textAndJPEG("lat=1, lng=2", jpeg: [0xFF, 0xD8, 0xFF]),
                feature: "vision")
            #expect(outcome.result?.modelUsed == OpenRouterModels.gpt56Terra)
            let body = try parseJSON(try #require(fake.lastRequest).body)
            #expect(body["temperature"] == nil)
            let content = body["messages"]?[1]?["content"]
            #expect(content?[0]?["type"]?.string == "text" && content?[0]?["text"]?.string == "lat=1, lng=2")
            #expect(content?[1]?["type"]?.string == "image_url")
            #expect(content?[1]?["image_url"]?["url"]?.string == "data:image/jpeg;base64,/9j/")
        }
    }

    @Test func missingKeyMakesNoRequest() async throws {
        try await withFake({ _ in completion("{}") }) { fake in
            let env = Environment(["OPENROUTER_BASE_URL": fake.baseURL])
            let outcome = await OpenRouterClient.fromEnvironment(env, http: testHTTPClient, logger: quietLogger())
                .chatJSON(
                    models: OpenRouterModels.vision, system: "s", user: .text("u"))
            guard case .noAPIKey = outcome else {
                Issue.record("expected noAPIKey, got \(outcome)")
                return
            }
            #expect(fake.requestCount == 0)
        }
    }

    @Test func spentDeadlineSkipsTheRemainingModels() async throws {
        try await withFake({ _ in
            try? await Task.sleep(for: .milliseconds(1000))
            return jsonResponse(500, "{}")
        }) { fake in
            let outcome = await client(fake).chatJSON(
                models: ["a/one", "b/two", "c/three"], system: "s", user: .text("u"), timeoutPerModel: .seconds(5),
                deadline: .now + .milliseconds(300))
            guard case .allModelsFailed(let failures) = outcome else {
                Issue.record("expected allModelsFailed")
                return
            }
            #expect(failures.map(\.reason) == [.timeout, .deadlineExceeded, .deadlineExceeded])
            // Only the first model was tried (the fake may not have recorded it yet when the deadline hit).
            #expect(fake.requestCount <= 1)
        }
    }

    @Test func modelChainsMatchTheContract() {
        #expect(OpenRouterModels.vision == ["openai/gpt-5.6-terra", "anthropic/claude-opus-4.8", "x-ai/grok-4.6"])
        #expect(OpenRouterModels.comparables == OpenRouterModels.vision)
        #expect(OpenRouterModels.dailyBrief == OpenRouterModels.vision)
        #expect(OpenRouterModels.localBrief == ["anthropic/claude-opus-4.8", "openai/gpt-5.6-terra", "x-ai/grok-4.6"])
        #expect(
            OpenRouterModels.researchFallback == ["x-ai/grok-4.6", "openai/gpt-5.6-luna", "anthropic/claude-opus-4.8"])
    }
}

struct ExtractJSONObjectTests {
    private func text(_ s: String) -> String? { extractJSONObject(s).map { String(decoding: $0, as: UTF8.self) } }

    @Test func stripsFencesAndProse() {
        #expect(text(#"{"a":1}"#) == #"{"a":1}"#)
        #expect(text("```json\n{\"a\":1}\n```") == #"{"a":1}"#)
        #expect(text("```\n{\"a\":{\"b\":2}}\n```\n") == #"{"a":{"b":2}}"#)
        #expect(text(#"Here you go: {"a":1} — done"#) == #"{"a":1}"#)
        #expect(text("no object here") == nil)
        #expect(text("} backwards {") == nil)
    }
}
