import Contracts
import ResearchCore
import Testing

/// The environment brief's rules: the series per sector, the searches, what a model's answer
/// must hold and the sources.
struct EnvironmentRulesTests {
    @Test func seriesPerSector() {
        #expect(EnvironmentRules.series("Energy").map(\.id) == ["DFF", "CPIAUCSL", "DCOILWTICO"])
        #expect(EnvironmentRules.series("Communication Services").map(\.id) == ["DFF", "CPIAUCSL"])
        #expect(EnvironmentRules.queries("Utilities", year: 2026).allSatisfy { $0.hasSuffix("2025 2026") })
    }

    @Test func latestSkipsMissingRows() {
        let latest = EnvironmentRules.latest([("2026-11-01", "."), ("2026-10-01", "4.33"), ("2026-09-01", "4.5")])
        #expect(latest?.date == "2026-10-01" && latest?.value == 4.33)
        #expect(EnvironmentRules.latest([("2026-11-01", "."), ("x", "nan")]) == nil)
    }

    @Test func writtenNeedsHeadlineAndBody() {
        let answer: [String: JSONValue] = [
            "headline": .string(" Oil firm "), "body": .string("Two paragraphs."),
            "tailwinds": .array(["- a", "• b", "* c", "d", "e"].map { .string($0) }), "headwinds": .array([.number(1)]),
        ]
        let written = EnvironmentRules.written(answer)
        #expect(written?.headline == "Oil firm" && written?.tailwinds == ["a", "b", "c", "d"])
        #expect(written?.headwinds == [])
        #expect(EnvironmentRules.written(["headline": .string("x")]) == nil)
        #expect(EnvironmentRules.written(["headline": .string(""), "body": .string("b")]) == nil)
    }

    @Test func sourcesAreFredPagesThenWebAtMostEight() {
        let series = (0..<3).map {
            EnvironmentSeries(id: "S\($0)", label: "L", latest: 1, unit: nil, asOf: "2026-01-01")
        }
        let web = (0..<7).map { EnvironmentRules.WebHit(title: "t", url: "https://w/\($0)", snippet: "s") }
        let sources = EnvironmentRules.sources(series: series, web: web, fetchedAt: "now")
        #expect(sources.count == 8 && sources.first?.url == "https://fred.stlouisfed.org/series/S0")
        #expect(sources.prefix(3).allSatisfy { $0.provider == .fred } && sources.last?.provider == .exa)
    }
}
