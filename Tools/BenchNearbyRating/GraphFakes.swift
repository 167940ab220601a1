import Foundation
import HTTPServer
import UpstreamFakes

/// The company graph's upstreams as loopback fakes speaking their wire formats, each counting what it is asked:
/// Underlying's `GET /api/sec/<T>` citations, Exa's `POST /search`, OpenRouter's `POST /chat/completions` (five
/// edges, each citing the evidence it was given) and SEC EDGAR's ticker map and submissions (a 10-K from 2020).
/// For `scripts/bench-graph.sh`: the counts go to `<counts-file>` (`name count` lines) every 200 ms.
extension Bench {
    static func runGraphFakes(envFile: String, countsFile: String) async throws {
        let filing = "https://www.sec.gov/Archives/edgar/data/7654321/bench-10k.htm"
        let underlying = try FakeUpstream { request in
            guard request.path.hasPrefix("/api/sec/") else { return .error(404, "not found") }
            return json(#"{"Citations":[{"Form":"10-K","Label":"Item 1 Business","URL":"\#(filing)"}]}"#)
        }
        let exa = try FakeUpstream { request in
            let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any]
            let slug = ((body?["query"] as? String) ?? "").split(separator: " ").prefix(2).joined(separator: "/")
            return json(
                #"{"results":[{"title":"On \#(slug)","url":"https://news.example.com/\#(slug)","highlights":["A line."]}]}"#
            )
        }
        let openRouter = try FakeUpstream { request in
            let text = String(decoding: request.body, as: UTF8.self)
            let subject =
                text.range(of: "Subject: ").map { String(text[$0.upperBound...].prefix { $0.isLetter || $0 == "." }) }
                ?? "X"
            let edges = [
                ("Taiwan Semiconductor", "TSM", "supplies", filing),
                ("Big Buyer", "BIGB", "buys_from", "https://news.example.com/\(subject)/largest"),
                ("Rival Corp", "RIVL", "competes_with", "https://news.example.com/\(subject)/main"),
                ("Partner Inc", "PRTN", "complements", "https://news.example.com/\(subject)/ecosystem"),
                ("Parts Co", "", "supplies", "https://news.example.com/\(subject)/key"),
            ].map { name, ticker, relation, url in
                #"{\"counterparty\":\"\#(name)\",\"ticker\":\"\#(ticker)\",\"relation\":\"\#(relation)\",\"weight\":0.7,\"sourceUrl\":\"\#(url)\"}"#
            }
            let content = #"{\"edges\":[\#(edges.joined(separator: ","))]}"#
            return json(
                #"{"choices":[{"message":{"role":"assistant","content":"\#(content)"}}],"usage":{"prompt_tokens":10,"completion_tokens":10,"total_tokens":20}}"#
            )
        }
        let edgar = try FakeUpstream { request in
            if request.path == "/files/company_tickers.json" {
                return json(#"{"0":{"cik_str":7654321,"ticker":"BNCH","title":"Bench Corp"}}"#)
            }
            guard request.path.hasPrefix("/submissions/CIK") else { return .error(404, "not found") }
            return json(
                #"{"filings":{"recent":{"accessionNumber":["0007654321-20-000001"],"filingDate":["2020-02-03"],"form":["10-K"],"acceptanceDateTime":["2020-02-03T21:05:00.000Z"]}}}"#
            )
        }
        let env = [
            "UNDERLYING_URL=\(underlying.baseURL)", "EXA_BASE_URL=\(exa.baseURL)", "EXA_API_KEY=bench",
            "OPENROUTER_BASE_URL=\(openRouter.baseURL)", "OPENROUTER_API_KEY=bench", "SEC_BASE_URL=\(edgar.baseURL)",
            "SEC_DATA_BASE_URL=\(edgar.baseURL)",
        ]
        try (env.map { "export \($0)" }.joined(separator: "\n") + "\n").write(
            toFile: envFile, atomically: true, encoding: .utf8)
        let fakes = [("underlying", underlying), ("exa", exa), ("openrouter", openRouter), ("edgar", edgar)]
        while true {
            let counts = fakes.map { "\($0.0) \($0.1.requests.count)" }.joined(separator: "\n") + "\n"
            try? counts.write(toFile: countsFile, atomically: true, encoding: .utf8)
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}
