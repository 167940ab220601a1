import Foundation
import HTTPClient
import HTTPServer
import Synchronization
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// The stored graph is refreshed when a new 10-K lands: a loopback SEC EDGAR (its ticker map and submissions
    /// JSON) lists the subject's newest 10-K; one older than the graph changes nothing, one accepted after it makes the
    /// next read stale (served free without an identity, re-extracted for a caller who may pay), and the new graph is
    /// fresh again.
    @Suite struct GraphTenKTests {
        /// When the fake EDGAR says the subject's newest 10-K was accepted.
        final class AcceptedAt: Sendable {
            let time = Mutex("2020-02-03T21:05:00.000Z")
        }

        @Test func aNewTenKRefreshesTheGraph() async throws {
            let letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
            let t = "K" + String((0..<4).map { _ in letters.randomElement() ?? "K" })
            let accepted = AcceptedAt()
            let edgar = try FakeUpstream { request in
                if request.path == "/files/company_tickers.json" {
                    return .json(
                        200, raw: Array(#"{"0":{"cik_str":7654321,"ticker":"\#(t)","title":"\#(t) Corp"}}"#.utf8))
                }
                guard request.path == "/submissions/CIK0007654321.json" else { return .error(404, "not found") }
                let at = accepted.time.withLock { $0 }
                return .json(
                    200,
                    raw: Array(
                        #"""
                        {"cik":"7654321","name":"\#(t) Corp","filings":{"recent":{
                          "accessionNumber":["0007654321-\#(at.prefix(4))-000001","0007654321-20-000002"],
                          "filingDate":["\#(at.prefix(10))","2020-01-15"],"form":["10-K","8-K"],
                          "acceptanceDateTime":["\#(at)","2020-01-15T12:00:00.000Z"],
                          "primaryDocument":["k10.htm","e8.htm"]}}}
                        """#.utf8))
            }
            let underlying = try FakeUpstream { _ in .error(404, "no citations") }
            let exa = try GraphTests.exa()
            let openRouter = try GraphTests.openRouter { subject in
                guard subject == t else { return "[]" }
                return """
                    [{"counterparty":"Rival","relation":"competes_with","weight":0.6,\
                    "sourceUrl":"https://news.example.com/\(t)/main"}]
                    """
            }
            let research = try await ServiceProcess.start(
                "Research",
                extra: [
                    "UNDERLYING_URL": underlying.baseURL, "EXA_BASE_URL": exa.baseURL, "EXA_API_KEY": "test",
                    "OPENROUTER_BASE_URL": openRouter.baseURL, "OPENROUTER_API_KEY": "test",
                    "SEC_BASE_URL": edgar.baseURL, "SEC_DATA_BASE_URL": edgar.baseURL,
                    "GRAPH_10K_CHECK_INTERVAL_MS": "300", "GRAPH_10K_PACE_MS": "0",
                ])
            let gateway = try await GatewayProcess.start(instance: "test-graph10k-\(UInt16.random(in: 0...9999))")
            defer {
                research.kill()
                gateway.process.kill()
            }
            let device = [("X-Device-Id", "graph10k-\(UUID().uuidString)")]
            var made = try await SystemClient.send(gateway, "GET", "/v1/graph/\(t)", headers: device)
            for _ in 0..<40 where made.status == 504 {
                made = try await SystemClient.send(gateway, "GET", "/v1/graph/\(t)", headers: device)
            }
            #expect(made.status == 200 && SystemClient.json(made)["count"] as? Int == 1, "\(SystemClient.text(made))")
            let first = try #require(SystemClient.json(made)["generatedAt"] as? String)
            #expect(openRouter.requests.count == 1)

            /// Waits until EDGAR has been asked for the subject's submissions `more` more times.
            func sweeps(_ more: Int) async throws {
                let target = edgar.requests.filter { $0.path.hasPrefix("/submissions/") }.count + more
                for _ in 0..<100 where edgar.requests.filter({ $0.path.hasPrefix("/submissions/") }).count < target {
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(edgar.requests.filter { $0.path.hasPrefix("/submissions/") }.count >= target)
            }

            // A 10-K older than the graph: still fresh, no extraction.
            try await sweeps(2)
            let kept = try await SystemClient.send(gateway, "GET", "/v1/graph/\(t)", headers: device)
            #expect(kept.status == 200 && SystemClient.json(kept)["generatedAt"] as? String == first)
            #expect(openRouter.requests.count == 1)
            #expect(edgar.requests.allSatisfy { $0.headers["User-Agent"]?.isEmpty == false })

            // A new 10-K lands: the stored graph is served to an anonymous caller, and re-extracted for one who pays.
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let now = formatter.string(from: Date())
            accepted.time.withLock { $0 = now }
            try await sweeps(2)
            let stale = try await SystemClient.send(gateway, "GET", "/v1/graph/\(t)")
            #expect(stale.status == 200 && SystemClient.json(stale)["generatedAt"] as? String == first)
            #expect(openRouter.requests.count == 1)
            let refreshed = try await SystemClient.send(gateway, "GET", "/v1/graph/\(t)", headers: device)
            #expect(refreshed.status == 200, "\(SystemClient.text(refreshed))")
            let second = try #require(SystemClient.json(refreshed)["generatedAt"] as? String)
            #expect(second > first && openRouter.requests.count == 2)

            // The new graph is younger than the 10-K: fresh again.
            try await sweeps(1)
            let hit = try await SystemClient.send(gateway, "GET", "/v1/graph/\(t)", headers: device)
            #expect(hit.status == 200 && SystemClient.json(hit)["generatedAt"] as? String == second)
            #expect(openRouter.requests.count == 2)
            for fake in [edgar, underlying, exa, openRouter] { await fake.shutdown() }
        }
    }
}
