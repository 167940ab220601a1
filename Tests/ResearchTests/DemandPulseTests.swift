import Contracts
import Foundation
import ResearchCore
import Testing

/// The demand-pulse arithmetic: which buyers count, the year-apart match, weights and reading.
struct DemandPulseTests {
    static func edge(_ ticker: String?, _ type: String = "buys_from", weight: Double, name: String = "Co")
        -> CompanyEdge
    {
        CompanyEdge(
            id: UUID().uuidString, srcTicker: "SUBJ", dstTicker: ticker, dstName: name, edgeType: type, weight: weight,
            reasoning: "", sources: [], asOf: nil, createdAt: "2026-01-01T00:00:00.000Z")
    }

    static func points(_ pairs: [(String, Double)]) -> [PeriodValue] {
        pairs.map { PeriodValue(fiscalDate: $0.0, value: $0.1) }
    }

    @Test func buyersAreListedBuysFromHeaviestFirst() {
        let edges =
            [
                Self.edge("aaa", weight: 0.2), Self.edge("AAA", weight: 0.5), Self.edge(nil, weight: 0.9),
                Self.edge("CCC", "supplies", weight: 1), Self.edge("BBB", weight: 0.4),
            ] + (0..<8).map { Self.edge("X\($0)", weight: 0.01) }
        let buyers = DemandPulseMath.buyers(edges)
        #expect(buyers.count == 6 && buyers.prefix(2).map(\.weight) == [0.5, 0.4])
        #expect(buyers.first?.dstTicker == "AAA" && !buyers.contains { $0.edgeType != "buys_from" })
    }

    @Test func yearApartMatchesAnnualAndQuarterlyFilers() {
        // Quarterly: the newest against the quarter a year before, not the adjacent quarter.
        let quarterly = Self.points([
            ("2025-09-30", 120), ("2025-06-30", 1), ("2025-03-31", 1), ("2024-12-31", 1), ("2024-09-30", 100),
        ])
        #expect(DemandPulseMath.yoy(quarterly) == 20)
        #expect(
            DemandPulseMath.yoy(Self.points([("2024-12-31", 90), ("2025-12-31", 99)])).map { ($0 * 10).rounded() }
                == 100)
        // Nothing 300–430 days back, a non-positive base, nothing at all: no figure (never 0).
        #expect(DemandPulseMath.yoy(Self.points([("2025-12-31", 1), ("2025-06-30", 2)])) == nil)
        #expect(DemandPulseMath.yoy(Self.points([("2025-12-31", 1), ("2024-12-31", 0)])) == nil)
        #expect(DemandPulseMath.yoy(Self.points([("2025-12-31", 1), ("bad", 5)])) == nil)
        #expect(DemandPulseMath.yoy([]) == nil)
    }

    @Test func weightedPulseAndReading() {
        let candidates = [Self.edge("AAA", weight: 0.6), Self.edge("BBB", weight: 0.2), Self.edge("CCC", weight: 0.1)]
        let statements = [
            "AAA": BuyerStatements(
                revenue: Self.points([("2025-12-31", 110), ("2024-12-31", 100)]),
                capex: Self.points([("2025-12-31", 55), ("2024-12-31", 50)])),
            "BBB": BuyerStatements(revenue: Self.points([("2025-06-30", 90), ("2024-06-30", 100)]), capex: []),
        ]
        let source = Source(provider: .massive, url: "https://m/x", fetchedAt: "t", confidence: .high)
        let pulse = DemandPulseMath.compute(
            ticker: "SUBJ", candidates: candidates, statements: statements, sources: [source, source],
            generatedAt: "now")
        #expect(abs((pulse.pulse ?? 0) - 5) < 1e-9 && pulse.interpretation == "expanding")
        #expect(pulse.buyers.map(\.weight).map { ($0 * 100).rounded() } == [75, 25, 0])
        #expect(pulse.buyers[2].revenueYoY == nil && pulse.buyers[1].capexYoY == nil && pulse.sources.count == 1)
        #expect(pulse.summary.hasPrefix("Demand pulse +5.0% YoY across buyers, expanding: AAA (revenue +10.0%"))

        let falling = [
            "BBB": BuyerStatements(revenue: Self.points([("2025-06-30", 90), ("2024-06-30", 100)]), capex: [])
        ]
        let down = DemandPulseMath.compute(
            ticker: "SUBJ", candidates: [Self.edge("BBB", weight: 0)], statements: falling, sources: [],
            generatedAt: "now")
        #expect(down.interpretation == "contracting" && down.buyers.first?.weight == 1)
    }

    @Test func unknownPulseEncodesNull() throws {
        let pulse = DemandPulseMath.compute(
            ticker: "SUBJ", candidates: [Self.edge("AAA", weight: 0.5)], statements: [:], sources: [],
            generatedAt: "now")
        #expect(pulse.pulse == nil && pulse.interpretation == "unknown" && pulse.buyers.first?.weight == 0)
        let text = String(decoding: try JSONEncoder().encode(pulse), as: UTF8.self)
        #expect(text.contains(#""pulse":null"#))
        #expect(try JSONDecoder().decode(DemandPulse.self, from: Data(text.utf8)) == pulse)
        #expect(pulse.summary == "Demand pulse unknown: no buyer's statements resolved (AAA).")
    }
}
