import Contracts
import ResearchCore
import Testing

/// The synthesis memo's rules: every layer stated in the prompt (an absent one as a gap), what a
/// model's answer must hold, the sources' union and the rating's one-line summary.
struct SynthesisRulesTests {
    static func source(_ url: String?, _ provider: Source.Provider = .exa) -> Source {
        Source(provider: provider, url: url, fetchedAt: "2026-12-01T00:00:00Z", confidence: .medium)
    }

    static func edge(_ name: String, _ ticker: String?, _ type: String, url: String) -> CompanyEdge {
        CompanyEdge(
            id: name, srcTicker: "XOM", dstTicker: ticker, dstName: name, edgeType: type, weight: 0.5,
            reasoning: "Cited via \(url)", sources: [source(url)], asOf: nil, createdAt: "2026-12-01T00:00:00Z")
    }

    @Test func emptyLayersAreNamedAsGaps() {
        let prompt = SynthesisRules.prompt(
            .init(
                ticker: "XOM", edges: [], pulse: nil, environment: nil, ratios: [], ratiosDate: nil,
                ratiosSource: nil))
        #expect(prompt.hasPrefix("Ticker: XOM\n"))
        for gap in [
            "(no value-chain graph is stored for this ticker: the graph is empty)",
            "(no demand pulse available: the customers above this company did not resolve)",
            "(no environment brief available for this company's sector)",
            "(no financial ratios available for this ticker)",
        ] {
            #expect(prompt.contains(gap))
        }
    }

    @Test func layersInThePrompt() {
        let pulse = DemandPulse(
            ticker: "XOM",
            buyers: [DemandPulseBuyer(ticker: "AMZN", name: "Amazon", revenueYoY: 10, capexYoY: nil, weight: 1)],
            pulse: 10, interpretation: "expanding", generatedAt: "t", sources: [])
        let layers = SynthesisRules.Layers(
            ticker: "XOM",
            edges: [
                Self.edge("Amazon", "AMZN", "buys_from", url: "https://a.example/1"),
                Self.edge("Acme", nil, "supplies", url: "https://a.example/2"),
            ],
            pulse: pulse, environment: nil, ratios: [.init(label: "P/E", value: 12.5)], ratiosDate: "2026-09-30",
            ratiosSource: nil)
        let prompt = SynthesisRules.prompt(layers)
        #expect(prompt.contains("Suppliers (the company buys from them):\n- Acme (private), weight 0.50"))
        #expect(prompt.contains("Customers (they buy from the company):\n- Amazon (AMZN), weight 0.50"))
        #expect(prompt.contains("(source: https://a.example/1)"))
        #expect(
            prompt.contains(
                "Weighted customer trend: 10.0% YoY (expanding)\n- Amazon (AMZN): revenue 10.0% YoY, weight 1.00"))
        #expect(prompt.contains("As of 2026-09-30\n- P/E: 12.50"))
    }

    @Test func writtenNeedsAMemo() {
        let written = SynthesisRules.written([
            "memo": .string(" Three paragraphs. "), "bindingConstraint": .string("Crude."),
            "pricingPower": .string(" "),
        ])
        #expect(written?.memo == "Three paragraphs." && written?.bindingConstraint == "Crude.")
        #expect(written?.pricingPower == nil && written?.demandDurability == nil)
        #expect(SynthesisRules.written(["memo": .string("  ")]) == nil)
        #expect(SynthesisRules.written(["bindingConstraint": .string("Crude.")]) == nil)
    }

    @Test func sourcesAreTheLayersDedupedAndCapped() {
        let edges = (0..<14).map { Self.edge("E\($0)", nil, "competes_with", url: "https://e.example/\($0 % 13)") }
        let layers = SynthesisRules.Layers(
            ticker: "XOM", edges: edges, pulse: nil, environment: nil, ratios: [], ratiosDate: nil,
            ratiosSource: Self.source("https://m.example/ratios", .massive))
        let sources = SynthesisRules.sources(layers)
        // Only the first 12 edges are read; they cite 12 distinct pages, so the ratios' source is past the cap.
        #expect(sources.count == 12 && Set(sources.compactMap(\.url)).count == 12)
        let few = SynthesisRules.Layers(
            ticker: "XOM", edges: [Self.edge("A", nil, "supplies", url: "https://e.example/1")], pulse: nil,
            environment: nil, ratios: [], ratiosDate: nil, ratiosSource: Self.source(nil, .massive))
        #expect(SynthesisRules.sources(few).map(\.provider) == [.exa, .massive])
    }

    @Test func summaryIsTheBindingConstraintElseTheFirstParagraph() {
        var memo = SynthesisMemo(
            ticker: "XOM", memo: "First\nline.\n\nSecond.", bindingConstraint: nil, demandDurability: nil,
            pricingPower: nil, generatedAt: "t", sources: [])
        #expect(memo.summary == "First line.")
        memo.bindingConstraint = String(repeating: "c", count: 400)
        #expect(memo.summary.hasPrefix("Binding constraint: ccc") && memo.summary.count == 300)
    }
}
