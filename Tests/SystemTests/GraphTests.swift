import Foundation
import HTTPClient
import HTTPServer
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// `GET /v1/graph/{ticker}` through the whole system with loopback fakes of Underlying's SEC citations, Exa's
    /// `/search` and OpenRouter's chat completions: a miss needs an identity, is extracted once and stored; a hit is
    /// free, needs no identity and calls no upstream; an extraction that finds nothing is not repeated.
    @Suite struct GraphTests {
        static let filing = "https://www.sec.gov/Archives/edgar/data/1/g-10k.htm"

        static func exa() throws -> FakeUpstream {
            try FakeUpstream { request in
                let query = (SystemClient.jsonObject(request.body)["query"] as? String) ?? ""
                let slug = query.split(separator: " ").prefix(2).joined(separator: "/")
                let body = try? JSONSerialization.data(withJSONObject: [
                    "results": [
                        [
                            "title": "On \(slug)", "url": "https://news.example.com/\(slug)?utm=1",
                            "highlights": ["A line about \(slug)."],
                        ]
                    ]
                ])
                return .json(200, raw: Array(body ?? Data()))
            }
        }

        /// Answers `edges` (a JSON array as text) for every subject.
        static func openRouter(_ edges: @escaping @Sendable (String) -> String) throws -> FakeUpstream {
            try FakeUpstream { request in
                let prompt =
                    ((SystemClient.jsonObject(request.body)["messages"] as? [[String: Any]])?.last?["content"]
                        as? String) ?? ""
                let subject = prompt.split(separator: "\n").first.map { String($0.dropFirst("Subject: ".count)) } ?? ""
                let body = try? JSONSerialization.data(withJSONObject: [
                    "choices": [["message": ["role": "assistant", "content": #"{"edges":\#(edges(subject))}"#]]],
                    "usage": ["prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20],
                ])
                return .json(200, raw: Array(body ?? Data()))
            }
        }

        @Test func missThenFreeHits() async throws {
            let letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
            let t = "G" + String((0..<4).map { _ in letters.randomElement() ?? "G" })
            let empty = "H" + String((0..<4).map { _ in letters.randomElement() ?? "H" })
            let underlying = try FakeUpstream { request in
                guard request.path.hasPrefix("/api/sec/") else { return .error(404, "no") }
                return .json(
                    200,
                    raw: Array(
                        #"{"Citations":[{"Form":"10-K","Label":"Item 1 Business","URL":"\#(Self.filing)"}]}"#.utf8))
            }
            let exa = try Self.exa()
            let openRouter = try Self.openRouter { subject in
                guard subject == t else { return "[]" }
                return """
                    [{"counterparty":"Taiwan Semiconductor","ticker":"TSM","relation":"supplies","weight":1.4,\
                    "reasoning":"Sole foundry.","sourceUrl":"\(Self.filing.replacingOccurrences(of: "https://www.", with: "http://"))/"},
                    {"counterparty":"Itself","ticker":"\(t)","relation":"competes_with","weight":0.2,\
                    "sourceUrl":"https://news.example.com/\(t)/main"},
                    {"counterparty":"Made Up","ticker":"MU","relation":"buys_from","weight":0.5,\
                    "sourceUrl":"https://elsewhere.example.com/"},
                    {"counterparty":"Rival","relation":"partners","weight":0.5,"sourceUrl":"https://news.example.com/\(t)/main"}]
                    """
            }
            let research = try await ServiceProcess.start(
                "Research",
                extra: [
                    "UNDERLYING_URL": underlying.baseURL, "EXA_BASE_URL": exa.baseURL, "EXA_API_KEY": "test",
                    "OPENROUTER_BASE_URL": openRouter.baseURL, "OPENROUTER_API_KEY": "test",
                ])
            let gateway = try await GatewayProcess.start(instance: "test-graph-\(UInt16.random(in: 0...9999))")
            defer {
                research.kill()
                gateway.process.kill()
            }
            let device = [("X-Device-Id", "graph-\(UUID().uuidString)")]

            let invalid = try await SystemClient.send(gateway, "GET", "/v1/graph/TOOLONG")
            #expect(invalid.status == 400 && SystemClient.errorMessage(invalid) == "invalid ticker")
            // A miss without an identity: nothing is generated (the first command may wait for the group).
            var anonymous = try await SystemClient.send(gateway, "GET", "/v1/graph/\(t)")
            for _ in 0..<40 where anonymous.status != 400 {
                anonymous = try await SystemClient.send(gateway, "GET", "/v1/graph/\(t)")
            }
            #expect(
                anonymous.status == 400
                    && SystemClient.errorMessage(anonymous)
                        == "X-Device-Id header (or a bearer session) required to generate a graph"
            )
            #expect(openRouter.requests.isEmpty && exa.requests.isEmpty)

            // The miss, generated: edges tied to the evidence, the subject never its own counterparty.
            let made = try await SystemClient.send(gateway, "GET", "/v1/graph/\(t.lowercased())", headers: device)
            #expect(made.status == 200, "\(SystemClient.text(made))")
            #expect(made.headers["X-Graph"] == nil && made.headers["X-Research-Turn"] == nil)
            let graph = SystemClient.json(made)
            let edges = try #require(graph["edges"] as? [[String: Any]])
            #expect(graph["ticker"] as? String == t && graph["count"] as? Int == 2 && edges.count == 2)
            let supplier = try #require(edges.first { $0["edgeType"] as? String == "supplies" })
            #expect(supplier["dstTicker"] as? String == "TSM" && supplier["weight"] as? Double == 1)
            #expect((supplier["sources"] as? [[String: Any]])?.first?["provider"] as? String == "sec")
            let rival = try #require(edges.first { $0["edgeType"] as? String == "competes_with" })
            #expect(
                rival["dstTicker"] == nil
                    && rival["reasoning"] as? String == "Cited via https://news.example.com/\(t)/main?utm=1")
            #expect((graph["sources"] as? [Any])?.count == 2)
            #expect(exa.requests.count == 4 && openRouter.requests.count == 1 && underlying.requests.count == 1)

            // A hit: free, no identity needed, no upstream called.
            let hit = try await SystemClient.send(gateway, "GET", "/v1/graph/\(t)")
            #expect(hit.status == 200 && (SystemClient.json(hit)["edges"] as? [Any])?.count == 2)
            #expect(SystemClient.json(hit)["generatedAt"] as? String == graph["generatedAt"] as? String)
            #expect(exa.requests.count == 4 && openRouter.requests.count == 1 && underlying.requests.count == 1)

            // Nothing found: an empty graph, and no second extraction within the hour.
            let none = try await SystemClient.send(gateway, "GET", "/v1/graph/\(empty)", headers: device)
            #expect(none.status == 200 && SystemClient.json(none)["count"] as? Int == 0)
            let again = try await SystemClient.send(gateway, "GET", "/v1/graph/\(empty)", headers: device)
            #expect(again.status == 200 && openRouter.requests.count == 2)

            for fake in [underlying, exa, openRouter] { await fake.shutdown() }
        }
    }
}
