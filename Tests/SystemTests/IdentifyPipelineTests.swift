import Contracts
import Foundation
import HTTPClient
import HTTPServer
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// The identify pipeline with loopback fakes of OpenRouter, Exa, Jev and Yahoo speaking their real JSON (and
    /// failing, timing out, returning garbage), plus real Tesseract OCR on images the test draws.
    @Suite struct IdentifyPipelineTests {
        /// An OpenRouter chat completion whose message content is `content`.
        static func completion(_ content: String, model: String) -> HTTPResponse {
            let body: [String: Any] = [
                "id": "gen-1", "model": model,
                "choices": [
                    ["index": 0, "message": ["role": "assistant", "content": content], "finish_reason": "stop"]
                ],
                "usage": ["prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120],
            ]
            return .json(200, raw: Array((try? JSONSerialization.data(withJSONObject: body)) ?? Data()))
        }

        static func openRouter(visionAnswer: String?) throws -> FakeUpstream {
            try FakeUpstream { request in
                let text = String(decoding: request.body, as: UTF8.self)
                let model = (SystemClient.jsonObject(request.body)["model"] as? String) ?? "?"
                if text.contains("identify investable brands in a photo") {
                    guard let visionAnswer else { return .error(500, "upstream overloaded") }
                    return completion(visionAnswer, model: model)
                }
                if text.contains("closest publicly traded comparables") {
                    return completion(
                        #"{"picks":[{"ticker":"SBUX","name":"Starbucks","score":0.82,"reasoning":"Specialty coffee peer.","sourceUrl":"https://news.example/coffee"}]}"#,
                        model: model)
                }
                return completion(#"{"isPublic":false,"ticker":null}"#, model: model)
            }
        }

        static func exa() throws -> FakeUpstream {
            try FakeUpstream { _ in
                .json(
                    200,
                    raw: Array(
                        #"{"results":[{"title":"Juniper Lane Roastery opens a third shop","url":"https://news.example/coffee","highlights":["The roastery competes with Starbucks (NASDAQ: SBUX) in specialty coffee."]}]}"#
                            .utf8))
            }
        }

        /// Answers every question of a systemone call, optionally after a delay.
        static func jev(delay: Duration = .zero) throws -> FakeUpstream {
            try FakeUpstream { request in
                if delay > .zero { try? await Task.sleep(for: delay) }
                let questions = (SystemClient.jsonObject(request.body)["questions"] as? [String: Any]) ?? [:]
                var answers: [String: Any] = [:]
                for id in questions.keys {
                    answers[id] =
                        id.hasPrefix("exposure_")
                        ? [
                            "type": "choice", "choice": "direct",
                            "probabilities": ["direct": 0.81, "parent": 0.1, "proxy": 0.06, "none": 0.03],
                            "confidence": 0.81,
                        ]
                        : ["type": "noul", "noul": 0.734]
                }
                let body: [String: Any] = [
                    "model": "jev-latest", "answers": answers, "usage": ["input_tokens": 10, "output_tokens": 5],
                ]
                return .json(200, raw: Array((try? JSONSerialization.data(withJSONObject: body)) ?? Data()))
            }
        }

        static func yahoo() throws -> FakeUpstream {
            try FakeUpstream { request in
                let symbol = request.path.split(separator: "/").last.map(String.init) ?? "X"
                return .json(
                    200,
                    raw: Array(
                        "{\"chart\":{\"result\":[{\"meta\":{\"symbol\":\"\(symbol)\",\"regularMarketPrice\":101.5,\"chartPreviousClose\":100.0,\"regularMarketTime\":1764000000,\"currency\":\"USD\",\"shortName\":\"\(symbol) Inc\"}}],\"error\":null}}"
                            .utf8))
            }
        }

        func start(openRouter: FakeUpstream?, exa: FakeUpstream?, jev: FakeUpstream?, yahoo: FakeUpstream?) async throws
            -> (ServiceProcess, GatewayProcess)
        {
            var env: [String: String] = ["MARKET_DATA_PRIMARY": "yahoo"]
            if let openRouter {
                env["OPENROUTER_API_KEY"] = "test-key"
                env["OPENROUTER_BASE_URL"] = openRouter.baseURL
            }
            if let exa {
                env["EXA_API_KEY"] = "test-key"
                env["EXA_BASE_URL"] = exa.baseURL
            }
            if let jev {
                env["JEV_API_KEY"] = "test-key"
                env["JEV_BASE_URL"] = jev.baseURL
            }
            env["YAHOO_BASE_URL"] = yahoo?.baseURL ?? "http://127.0.0.1:9"
            let identify = try await ServiceProcess.start("Identify", extra: env)
            let gateway = try await GatewayProcess.start(instance: "test-pipe-\(UInt16.random(in: 0...9999))")
            // A first request waits out the group's rebalance (it names no brand, so it spends no upstream call
            // that later assertions count, apart from vision).
            _ = try await SystemClient.identify(gateway, hint: nil, image: [0xFF, 0xD8, 0xFF, 0xD9])
            openRouter?.reset()
            return (identify, gateway)
        }

        static func decode(_ response: HTTPClientResponse) throws -> IdentifyResponse {
            try JSONDecoder().decode(IdentifyResponse.self, from: Data(response.body))
        }

        @Test func offlineOCRReadsAStorefront() async throws {
            let (identify, gateway) = try await start(openRouter: nil, exa: nil, jev: nil, yahoo: nil)
            defer {
                identify.kill()
                gateway.process.kill()
            }
            let image = try await TestImages.draw("STARBUCKS")
            let response = try await SystemClient.identify(gateway, hint: nil, image: image)
            #expect(response.status == 200)
            let body = try Self.decode(response)
            #expect(body.identification.modelUsed == "ocr:tesseract")
            #expect(body.identification.visibleText.contains { $0.uppercased().contains("STARBUCKS") })
            let top = try #require(body.investables.first)
            #expect(top.brand.ticker?.symbol == "SBUX")
            #expect(top.sources.map(\.provider) == [.manual])
            #expect(top.verdict == nil)
        }

        @Test func visionThenResolutionComparablesQuotesAndVerdicts() async throws {
            let openRouter = try Self.openRouter(
                visionAnswer: """
                    ```json
                    {"visibleText":["STARBUCKS","Corner Roastery"],"detected":[{"brand":"Starbucks","sector":"Consumer Discretionary","confidence":"high"},{"product":"cup"},{"brand":"Juniper Lane Roastery","sector":"Consumer Staples","confidence":"high"}],"modelUsed":"x"}
                    ```
                    """)
            let exa = try Self.exa()
            let jev = try Self.jev()
            let yahoo = try Self.yahoo()
            let (identify, gateway) = try await start(openRouter: openRouter, exa: exa, jev: jev, yahoo: yahoo)
            defer {
                identify.kill()
                gateway.process.kill()
            }

            let response = try await SystemClient.identify(gateway, hint: "coffee shop", image: MultipartBody.fakeJPEG)
            #expect(response.status == 200)
            let body = try Self.decode(response)
            #expect(body.identification.modelUsed == "openai/gpt-5.6-terra")
            #expect(body.investables.count == 2)
            let starbucks = try #require(body.investables.first)
            #expect(starbucks.brand.ticker?.symbol == "SBUX")
            #expect(starbucks.sources.map(\.provider) == [.manual, .openrouter])
            #expect(starbucks.quote?.price == 101.5)
            #expect(starbucks.quote?.disclaimer == "delayed by 15 min, source: Yahoo Finance")
            #expect(starbucks.verdict?.exposure == .direct)
            #expect(starbucks.verdict?.probability == 0.81)
            #expect(starbucks.verdict?.worthALook == 0.734)
            let roastery = body.investables[1]
            #expect(roastery.brand.isPublic == false)
            #expect(roastery.confidence == .medium)
            #expect(roastery.comparables.first?.ticker == "SBUX")
            #expect(roastery.comparables.first?.sources.first?.provider == .exa)
            #expect(!roastery.etfs.isEmpty)
            #expect(roastery.rarity == .rare)
            // The photo went to the vision model as a data URL; the hint was quoted.
            let visionCall = try #require(openRouter.requests.first { $0.bodyText.contains("image_url") })
            #expect(visionCall.bodyText.replacingOccurrences(of: "\\/", with: "/").contains("data:image/jpeg;base64,"))
            #expect(visionCall.headers["Authorization"] == "Bearer test-key")
        }

        @Test func everyVisionModelFailingFallsBackToOCR() async throws {
            let openRouter = try Self.openRouter(visionAnswer: nil)
            let (identify, gateway) = try await start(openRouter: openRouter, exa: nil, jev: nil, yahoo: nil)
            defer {
                identify.kill()
                gateway.process.kill()
            }
            let response = try await SystemClient.identify(
                gateway, hint: nil, image: try await TestImages.draw("TARGET"))
            #expect(response.status == 200)
            let body = try Self.decode(response)
            #expect(body.identification.modelUsed == "ocr:tesseract")
            #expect(body.investables.first?.brand.ticker?.symbol == "TGT")
            #expect(openRouter.requests.count == 3)
        }

        @Test func garbageVisionAndASlowJevStillAnswerPromptly() async throws {
            let openRouter = try Self.openRouter(visionAnswer: "I cannot help with that <html>")
            let jev = try Self.jev(delay: .seconds(8))
            let (identify, gateway) = try await start(openRouter: openRouter, exa: nil, jev: jev, yahoo: nil)
            defer {
                identify.kill()
                gateway.process.kill()
            }
            let started = ContinuousClock.now
            let response = try await SystemClient.identify(gateway, hint: "Costco", image: MultipartBody.fakeJPEG)
            #expect(response.status == 200)
            let body = try Self.decode(response)
            #expect(body.investables.first?.brand.ticker?.symbol == "COST")
            #expect(body.investables.first?.verdict == nil)
            #expect(!SystemClient.text(response).contains("\"verdict\""))
            #expect(ContinuousClock.now - started < .seconds(7))
        }
    }
}
