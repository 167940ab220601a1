import Finance
import Foundation
import Testing

/// Compares the project's own seed with the reference copy beside the clone (`../shared/reference/data`).
/// CI has it; elsewhere the test is skipped with a printed reason. The project never reads this file.
struct ReferenceCoverageTests {
    static let referenceURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // FinanceTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .deletingLastPathComponent()  // its parent
        .appendingPathComponent("shared/reference/data/brands.json")

    static let referencePresent: Bool = {
        let present = FileManager.default.fileExists(atPath: referenceURL.path)
        if !present { print("ReferenceCoverageTests skipped: no reference seed at \(referenceURL.path)") }
        return present
    }()

    private struct RefEntry: Decodable {
        let ticker: String
    }

    @Test(.enabled(if: referencePresent, "the reference seed ../shared/reference/data/brands.json is absent"))
    func agreesWithTheReferenceOnSharedKeys() throws {
        let data = try Data(contentsOf: Self.referenceURL)
        let reference = try JSONDecoder().decode([String: RefEntry].self, from: data)
        let seed = BrandSeed.shared

        let referenceTickers = Set(reference.values.map { $0.ticker.uppercased() })
        let covered = referenceTickers.intersection(seed.tickers)
        print("reference: \(reference.count) keys, \(referenceTickers.count) tickers; ours: \(seed.entries.count) keys, "
            + "\(seed.tickers.count) tickers; we cover \(covered.count) of the reference tickers")

        var shared = 0
        var disagreements: [String] = []
        for (key, entry) in reference.sorted(by: { $0.key < $1.key }) {
            guard let ours = seed.entry(forKey: key) else { continue }
            shared += 1
            if ours.ticker != entry.ticker.uppercased() {
                disagreements.append("\(key): ours \(ours.ticker), reference \(entry.ticker)")
            }
        }
        let agreement = shared == 0 ? 1 : Double(shared - disagreements.count) / Double(shared)
        print("shared keys: \(shared); ticker agreement \(String(format: "%.1f", agreement * 100))%")
        if !disagreements.isEmpty {
            print("disagreements (double-check; ours reflects listings as of 2026):\n  "
                + disagreements.joined(separator: "\n  "))
        }
        #expect(shared >= 200, "too few shared keys to compare: \(shared)")
        #expect(agreement >= 0.9, "ticker agreement \(agreement) < 90%")
    }
}
