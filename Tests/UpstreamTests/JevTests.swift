import Contracts
import Foundation
import HTTPClient
import HTTPServer
import Jev
import Runtime
import TestSupport
import Testing
import UpstreamFakes

private let answersBody = """
    {"model":"jev-latest","answers":{
      "look_d0":{"type":"noul","noul":0.82},
      "exposure_d0":{"type":"choice","choice":"parent","probabilities":{"direct":0.05,"parent":0.88,"proxy":0.05,"none":0.02},"confidence":0.88},
      "rating":{"type":"score","score":3,"legend":{"0":"strong_sell","4":"strong_buy"},"probabilities":{"strong_sell":0.02,"sell":0.08,"hold":0.2,"buy":0.6,"strong_buy":0.1},"confidence":0.71}
    },"usage":{"input_tokens":120,"output_tokens":9}}
    """

private struct VerdictState: Encodable, Sendable {
    struct Detection: Encodable, Sendable {
        var brand: String
        var is_public: Bool
    }
    var detections: [String: Detection]
}

private func client(_ fake: FakeUpstream, key: String? = "jev-test-key", timeout: Duration = .seconds(8)) -> JevClient {
    JevClient(
        baseURL: fake.baseURL, apiKey: key, attemptTimeout: timeout, retryBackoff: .milliseconds(250),
        http: testHTTPClient, logger: quietLogger())
}

private let questions: [String: JevQuestion] = [
    "exposure_d0": .choice(
        instructions: "How does owning the ticker expose you?", labels: ["direct", "parent", "proxy", "none"]),
    "look_d0": .noul(instructions: "Worth a closer look?"),
    "rating": .score(instructions: "3-month signal", criteria: ["strong_sell", "sell", "hold", "buy", "strong_buy"]),
]

struct JevClientTests {
    @Test func sendsTheContractRequestAndParsesTypedAnswers() async throws {
        try await withFake({ _ in jsonResponse(200, answersBody) }) { fake in
            let state = VerdictState(detections: ["d0": .init(brand: "Converse", is_public: false)])
            let result = await client(fake).ask(state: state, questions: questions)
            let answers = try result.get()

            #expect(answers.noul("look_d0") == 0.82)
            let choice = try #require(answers.choice("exposure_d0"))
            #expect(choice.choice == "parent" && choice.confidence == 0.88 && choice.isConfident)
            #expect(choice.probabilities["parent"] == 0.88)
            let score = try #require(answers.score("rating"))
            #expect(score.score == 3 && score.probabilities["buy"] == 0.6 && score.legend?["4"] == "strong_buy")
            #expect(answers.usage == JevUsage(inputTokens: 120, outputTokens: 9))
            #expect(answers.model == "jev-latest")

            let request = try #require(fake.lastRequest)
            #expect(request.method == "POST" && request.path == "/v1/systemone")
            #expect(request.headers["Authorization"] == "Bearer jev-test-key")
            #expect(request.headers["Content-Type"] == "application/json")
            let body = try parseJSON(request.body)
            #expect(body["model"]?.string == "jev-latest")
            #expect(body["state"]?["detections"]?["d0"]?["brand"]?.string == "Converse")
            #expect(
                body["questions"]?["look_d0"]
                    == .object(["type": .string("noul"), "instructions": .string("Worth a closer look?")]))
            let criteria = body["questions"]?["exposure_d0"]?["criteria"]
            #expect(criteria == .object(["direct": .null, "parent": .null, "proxy": .null, "none": .null]))
            #expect(body["questions"]?["exposure_d0"]?["type"]?.string == "choice")
            #expect(
                body["questions"]?["rating"]?["criteria"]
                    == .array(["strong_sell", "sell", "hold", "buy", "strong_buy"].map { .string($0) }))
        }
    }

    @Test func stringStateIsSentAsAString() async throws {
        try await withFake({ _ in jsonResponse(200, #"{"answers":{"q":{"type":"noul","noul":0.1}}}"#) }) { fake in
            let result = await client(fake).noul(state: "headline text", instructions: "enough new signal?")
            #expect(result == .success(0.1))
            let body = try parseJSON(try #require(fake.lastRequest).body)
            #expect(body["state"]?.string == "headline text")
        }
    }

    @Test func retriesA429ThenSucceeds() async throws {
        let calls = CallCounter()
        try await withFake({ _ in
            calls.next() == 1 ? jsonResponse(429, #"{"error":"slow down"}"#) : jsonResponse(200, answersBody)
        }) { fake in
            let start = ContinuousClock.now
            let result = await client(fake).ask(state: ["x": 1], questions: questions)
            #expect((try? result.get())?.noul("look_d0") == 0.82)
            #expect(fake.requestCount == 2)
            #expect(ContinuousClock.now - start >= .milliseconds(240))  // 250 ms × 2^0 before the retry
        }
    }

    @Test func gives529UpAfterThreeAttempts() async throws {
        try await withFake({ _ in jsonResponse(529, "{}") }) { fake in
            let result = await JevClient(
                baseURL: fake.baseURL, apiKey: "k", retryBackoff: .milliseconds(10), http: testHTTPClient,
                logger: quietLogger()
            ).ask(state: "s", questions: questions)
            #expect(result == .failure(.rateLimited(status: 529)))
            #expect(fake.requestCount == 3)
        }
    }

    @Test func otherStatusesFailWithoutRetry() async throws {
        try await withFake({ _ in jsonResponse(500, #"{"error":"boom"}"#) }) { fake in
            let result = await client(fake).ask(state: "s", questions: questions)
            #expect(result == .failure(.httpError(status: 500)))
            #expect(fake.requestCount == 1)
        }
    }

    @Test func timeoutFailsImmediately() async throws {
        try await withFake({ _ in
            try? await Task.sleep(for: .milliseconds(1500))
            return jsonResponse(200, answersBody)
        }) { fake in
            let start = ContinuousClock.now
            let result = await client(fake, timeout: .milliseconds(200)).ask(state: "s", questions: questions)
            #expect(result == .failure(.timeout))
            #expect(ContinuousClock.now - start < .milliseconds(1200))
            // No retry; under load the client may give up before the fake even records the request.
            #expect(fake.requestCount <= 1)
        }
    }

    @Test func overallTimeoutCapsTheCall() async throws {
        try await withFake({ _ in
            try? await Task.sleep(for: .milliseconds(1500))
            return jsonResponse(200, answersBody)
        }) { fake in
            let result = await client(fake).ask(state: "s", questions: questions, overallTimeout: .milliseconds(200))
            #expect(result == .failure(.timeout))
        }
    }

    @Test func garbageBodyIsInvalidResponse() async throws {
        try await withFake({ _ in jsonResponse(200, "<html>not json") }) { fake in
            #expect(await client(fake).ask(state: "s", questions: questions) == .failure(.invalidResponse))
        }
    }

    @Test func oneUnparseableAnswerFailsTheBatch() async throws {
        let body =
            #"{"answers":{"a":{"type":"noul","noul":0.4},"b":{"type":"choice","choice":"x","probabilities":{}}}}"#
        try await withFake({ _ in jsonResponse(200, body) }) { fake in
            #expect(await client(fake).ask(state: "s", questions: questions) == .failure(.invalidResponse))
        }
    }

    @Test func missingKeyMakesNoRequest() async throws {
        try await withFake({ _ in jsonResponse(200, answersBody) }) { fake in
            let env = Environment(["JEV_BASE_URL": fake.baseURL])
            let result = await JevClient.fromEnvironment(env, http: testHTTPClient, logger: quietLogger()).ask(
                state: "s", questions: questions)
            #expect(result == .failure(.noAPIKey))
            #expect(await client(fake, key: nil).ask(state: "s", questions: questions) == .failure(.noAPIKey))
            #expect(fake.requestCount == 0)
        }
    }

    @Test func singleChoiceBelowThresholdIsLowConfidence() async throws {
        let body =
            #"{"answers":{"q":{"type":"choice","choice":"ticker","probabilities":{"ticker":0.5},"confidence":0.5}}}"#
        try await withFake({ _ in jsonResponse(200, body) }) { fake in
            let result = await client(fake).choice(state: "q", instructions: "intent?", labels: ["ticker", "place"])
            #expect(result == .failure(.lowConfidence))
        }
    }

    @Test func keyAndStateNeverReachTheLog() async throws {
        let sink = LogSink.memory()
        try await withFake({ _ in jsonResponse(500, "{}") }) { fake in
            let jev = JevClient(
                baseURL: fake.baseURL, apiKey: "super-secret-key", http: testHTTPClient, logger: quietLogger(sink))
            _ = await jev.ask(state: ["secret-state": "private words"], questions: questions)
        }
        let text = sink.lines.joined()
        #expect(!sink.lines.isEmpty)
        #expect(!text.contains("super-secret-key") && !text.contains("private words"))
    }
}

struct JevGateTests {
    @Test func backsOffAfterAFailureAndReopens() async throws {
        let gate = JevGate(backoff: .milliseconds(150))
        #expect(gate.allowsCalls)
        gate.record(Result<Int, JevFailure>.failure(.noAPIKey))
        #expect(gate.allowsCalls)
        gate.record(Result<Int, JevFailure>.failure(.timeout))
        #expect(!gate.allowsCalls)
        try await Task.sleep(for: .milliseconds(200))
        #expect(gate.allowsCalls)
        gate.recordFailure()
        gate.recordSuccess()
        #expect(gate.allowsCalls)
        #expect(JevGate.confidenceThreshold == 0.55)
        #expect(JevGate().backoff == .seconds(60))
    }
}
