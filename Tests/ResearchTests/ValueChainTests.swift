import Contracts
import ResearchCore
import Testing

/// The value-chain rules: tickers, freshness, loose URL matching and which model edges survive.
struct ValueChainTests {
    @Test func tickers() {
        #expect(ValueChain.ticker(" brk.b ") == "BRK.B" && ValueChain.ticker("AAPL") == "AAPL")
        for bad in ["", "1AB", "TOOLONG", "A-B", "$MCD"] { #expect(ValueChain.ticker(bad) == nil, "\(bad)") }
    }

    @Test func freshness() {
        #expect(ValueChain.isFresh(count: 4, ageSeconds: 29 * 86_400))
        #expect(!ValueChain.isFresh(count: 4, ageSeconds: 31 * 86_400))
        #expect(ValueChain.isFresh(count: 3, ageSeconds: 3_600) && !ValueChain.isFresh(count: 3, ageSeconds: 90_000))
        #expect(!ValueChain.isFresh(count: 0, ageSeconds: 0))
    }

    @Test func looseURLs() {
        #expect(
            ValueChain.looseURL("HTTPS://www.Example.com/a/b/?q=1#x") == ValueChain.looseURL("http://example.com/a/b"))
    }

    @Test func edgesKeepOnlyWhatTheEvidenceSupports() {
        let evidence = [
            ValueChain.Evidence(url: "https://sec.gov/f.htm", label: "10-K", isFiling: true),
            ValueChain.Evidence(url: "https://news.example.com/a", label: "A", isFiling: false),
        ]
        func edge(_ name: String, _ ticker: String?, _ relation: String, _ url: String, weight: Double = 0.5)
            -> JSONValue
        {
            var e: [String: JSONValue] = [
                "counterparty": .string(name), "relation": .string(relation), "sourceUrl": .string(url),
                "weight": .number(weight),
            ]
            if let ticker { e["ticker"] = .string(ticker) }
            return .object(e)
        }
        let answer: [String: JSONValue] = [
            "edges": .array([
                edge("Foundry", "tsm", "supplies", "http://www.sec.gov/f.htm/", weight: -2),
                edge("Foundry again", "TSM", "supplies", "https://sec.gov/f.htm"),
                edge("Self", "AAPL", "competes_with", "https://news.example.com/a"),
                edge("Nobody", "NA", "complements", "https://news.example.com/a?x=1"),
                edge("Invented", "INV", "buys_from", "https://nowhere.example.com"),
                edge("Odd", "ODD", "partners", "https://news.example.com/a"),
            ])
        ]
        let edges = ValueChain.edges(
            answer, subject: "AAPL", evidence: evidence, createdAt: "2026-12-03T00:00:00.000Z", asOf: "2026-12-03",
            id: { "e\($0)" })
        #expect(edges.map(\.dstName) == ["Foundry", "Self", "Nobody"])
        #expect(edges.map(\.dstTicker) == ["TSM", nil, nil] && edges.map(\.id) == ["e0", "e1", "e2"])
        #expect(edges[0].weight == 0 && edges[0].sources.first?.provider == .sec)
        #expect(
            edges[1].sources.first?.provider == .exa && edges[1].reasoning == "Cited via https://news.example.com/a")
        let response = CompanyGraphResponse(ticker: "AAPL", edges: edges, now: "later")
        #expect(
            response.count == 3 && response.sources.count == 2 && response.generatedAt == "2026-12-03T00:00:00.000Z")
    }
}
