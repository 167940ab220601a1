import Contracts
import Finance
import Foundation
import Testing

/// Compares the project's own seed with the reference copy beside the clone (`../shared/reference/data`).
/// CI has it; elsewhere the tests are skipped with a printed reason. The project never reads this file.
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
        let sector: String?
    }

    /// Why a reference ticker is not in our seed: the listing changed after the reference was written.
    /// `successor` is the listing that now carries the brands, if any (also noted in `BrandSeed`).
    struct Absence {
        let reason: String
        let successor: String?
    }

    static let absences: [String: Absence] = [
        "DFS": Absence(reason: "acquired by Capital One, May 2025", successor: "COF"),
        "RDFN": Absence(reason: "acquired by Rocket Companies, Jul 2025", successor: "RKT"),
        "PARA": Absence(reason: "merged with Skydance as Paramount Skydance, Aug 2025", successor: "PSKY"),
        "FL": Absence(reason: "acquired by Dick's Sporting Goods, Sep 2025", successor: "DKS"),
        "MESA": Absence(
            reason: "merged with Republic Airways, renamed Republic Airways Holdings, Nov 2025", successor: "RJET"),
        "CMA": Absence(reason: "acquired by Fifth Third, Feb 2026", successor: "FITB"),
        "DENN": Absence(
            reason: "taken private by TriArtisan, Treville and Yadav Enterprises, Jan 2026", successor: nil),
        "AYRWF": Absence(
            reason: "core operations sold to its senior noteholders (private) in a 2025 foreclosure; parent wound down",
            successor: nil),
        "JWN": Absence(reason: "taken private by the Nordstrom family and Liverpool, May 2025", successor: nil),
        "WBA": Absence(reason: "taken private by Sycamore Partners, Aug 2025", successor: nil),
        "SKX": Absence(reason: "taken private by 3G Capital, Sep 2025", successor: nil),
        "KLG": Absence(reason: "acquired by Ferrero (private), Sep 2025", successor: nil),
        "K": Absence(reason: "acquired by Mars (private), Dec 2025", successor: nil),
        "BIG": Absence(reason: "Chapter 11 in 2024, delisted; stores sold to private buyers", successor: nil),
        "SAVE": Absence(reason: "old shares cancelled in the 2025 reorganisation, delisted", successor: nil),
    ]

    /// Tickers both seeds list under different sectors, and why ours differs (GICS as of 2026, or a different
    /// company behind the ticker).
    static let sectorDifferences: [String: String] = [
        "AMZN": "GICS classifies Amazon as Consumer Discretionary (broadline retail)",
        "MSFT": "GICS classifies Microsoft as Information Technology (software)",
        "SONY": "GICS classifies Sony Group as Consumer Discretionary (consumer electronics)",
        "DG": "GICS 2023 moved general-merchandise stores to Consumer Staples",
        "DLTR": "GICS 2023 moved general-merchandise stores to Consumer Staples",
        "CASY": "GICS classifies Casey's as Consumer Staples (food retail)",
        "CART": "GICS classifies Maplebear (Instacart) as Consumer Staples",
        "SE":
            "Sea Ltd has one GICS sector (Consumer Discretionary); the reference also files Garena under "
            + "Communication Services",
        "VLVLY": "VLVLY is AB Volvo (trucks: Industrials); the reference files it under Volvo Cars",
    ]

    private static func loadReference() throws -> [String: RefEntry] {
        try JSONDecoder().decode([String: RefEntry].self, from: Data(contentsOf: referenceURL))
    }

    /// The reference as a `BrandSeed`, so its dex comes from the same code as ours.
    private static func referenceSeed(_ reference: [String: RefEntry]) -> BrandSeed {
        BrandSeed(
            entries: reference.mapValues {
                SeedEntry(ticker: $0.ticker.uppercased(), exchange: "-", parent: "-", sector: $0.sector ?? "")
            })
    }

    @Test(.enabled(if: referencePresent, "the reference seed ../shared/reference/data/brands.json is absent"))
    func agreesWithTheReferenceOnSharedKeys() throws {
        let reference = try Self.loadReference()
        let seed = BrandSeed.shared

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
            print(
                "disagreements (double-check; ours reflects listings as of 2026):\n  "
                    + disagreements.joined(separator: "\n  "))
        }
        #expect(shared >= 200, "too few shared keys to compare: \(shared)")
        #expect(agreement >= 0.9, "ticker agreement \(agreement) < 90%")
    }

    /// Every ticker the reference maps a brand to is in our seed, or its absence is a listed corporate action.
    @Test(.enabled(if: referencePresent, "the reference seed ../shared/reference/data/brands.json is absent"))
    func coversTheReferenceTickers() throws {
        let reference = try Self.loadReference()
        let seed = BrandSeed.shared
        let referenceTickers = Set(reference.values.map { $0.ticker.uppercased() })
        let covered = referenceTickers.intersection(seed.tickers)
        let missing = referenceTickers.subtracting(seed.tickers).sorted()
        let viaSuccessor = missing.filter { Self.absences[$0]?.successor.map(seed.tickers.contains) == true }
        let unexplained = missing.filter { Self.absences[$0] == nil }

        let total = Double(referenceTickers.count)
        print(
            "reference: \(reference.count) keys, \(referenceTickers.count) tickers; ours: \(seed.entries.count) keys, "
                + "\(seed.tickers.count) tickers")
        print(
            "coverage of the reference tickers: \(covered.count)/\(referenceTickers.count) = "
                + "\(String(format: "%.1f", Double(covered.count) / total * 100))% listed as is; "
                + "\(String(format: "%.1f", Double(covered.count + viaSuccessor.count) / total * 100))% with successors"
        )
        for ticker in missing {
            let absence = Self.absences[ticker]
            let successor = absence?.successor.map { " → \($0)" } ?? " (brands absent)"
            print("  miss \(ticker): \(absence?.reason ?? "UNEXPLAINED")\(successor)")
        }

        #expect(unexplained.isEmpty, "reference tickers missing without a recorded reason: \(unexplained)")
        let stale = Self.absences.keys.filter { seed.tickers.contains($0) }.sorted()
        #expect(stale.isEmpty, "listed as absent but present in the seed: \(stale)")
        for (ticker, absence) in Self.absences {
            if let successor = absence.successor {
                #expect(seed.tickers.contains(successor), "\(ticker)'s successor \(successor) is not in the seed")
            }
        }
        // Issue 17's goal is 99 %; the residue is companies taken private (their brands are private now).
        let wentPrivate = missing.count - viaSuccessor.count
        #expect(Double(covered.count + viaSuccessor.count) / total >= 0.98)
        #expect(wentPrivate <= 10, "\(wentPrivate) reference tickers have no public successor")
    }

    /// The reference's brand keys of a ticker we carry land on that ticker (or its successor), and every ticker the
    /// reference seeds classifies `common` here too, unless its company went private.
    @Test(.enabled(if: referencePresent, "the reference seed ../shared/reference/data/brands.json is absent"))
    func referenceFindsKeepTheirRarity() throws {
        let reference = try Self.loadReference()
        var legendary: [String] = []
        for ticker in Set(reference.values.map { $0.ticker.uppercased() }).sorted() {
            let effective = Self.absences[ticker].map { $0.successor } ?? ticker
            guard let effective else { continue }  // went private: the brand is private now
            if RarityClassifier.classify(ticker: effective, comparable: nil, isPublic: true) != .common {
                legendary.append(ticker)
            }
        }
        #expect(legendary.isEmpty, "reference tickers that are not common here: \(legendary)")
    }

    /// Per sector (docs/COMPATIBILITY.md#dex): our dex totals differ from the reference's only by what coverage
    /// explains: reference tickers we lack (the corporate actions above), tickers filed under another sector (listed),
    /// and tickers only we seed.
    @Test(.enabled(if: referencePresent, "the reference seed ../shared/reference/data/brands.json is absent"))
    func dexTotalsDifferOnlyByCoverage() throws {
        let seed = BrandSeed.shared
        let refSeed = Self.referenceSeed(try Self.loadReference())
        func sectorOf(_ seed: BrandSeed) -> [String: Set<String>] {
            var sectors: [String: Set<String>] = [:]
            for (sector, tickers) in seed.sectorTickers {
                for ticker in tickers { sectors[ticker, default: []].insert(sector) }
            }
            return sectors
        }
        let refSectors = sectorOf(refSeed)
        let ourSectors = sectorOf(seed)

        let moved = refSectors.keys.filter { ticker in
            guard let ours = ourSectors[ticker] else { return false }
            return ours != refSectors[ticker]
        }.sorted()
        let unexplainedMoves = moved.filter { Self.sectorDifferences[$0] == nil }.map { ticker in
            "\(ticker): ours \(ourSectors[ticker]?.sorted() ?? []), reference \(refSectors[ticker]?.sorted() ?? [])"
        }
        #expect(unexplainedMoves.isEmpty, "sector differs from the reference without a reason: \(unexplainedMoves)")

        // A player who caught every reference ticker: complete in every sector of the reference dex, and here
        // short exactly by the tickers we lack or file elsewhere.
        let refDex = DexSectors.compute(effectiveTickers: refSeed.tickers, seed: refSeed)
        #expect(refDex.allSatisfy { $0.found == $0.total })
        let refTotals = Dictionary(uniqueKeysWithValues: refDex.map { ($0.sector, $0.total) })
        let ourDex = DexSectors.compute(effectiveTickers: refSeed.tickers, seed: seed)
        print(
            "sector: reference total → our total (reference tickers found here; missing, moved out, moved in, only ours)"
        )
        for row in ourDex {
            let inSector = refSeed.sectorTickers[row.sector] ?? []
            let missing = inSector.filter { ourSectors[$0] == nil }.count
            let movedOut = inSector.filter { ourSectors[$0].map { !$0.contains(row.sector) } ?? false }.count
            let movedIn = moved.filter { ourSectors[$0]?.contains(row.sector) == true && !inSector.contains($0) }.count
            let onlyOurs = (seed.sectorTickers[row.sector] ?? []).filter { refSectors[$0] == nil }.count
            let refTotal = refTotals[row.sector] ?? 0
            print(
                "  \(row.sector): \(refTotal) → \(row.total) (\(row.found); −\(missing), −\(movedOut), +\(movedIn), +\(onlyOurs))"
            )
            #expect(row.found == refTotal - missing - movedOut + movedIn, "\(row.sector): found \(row.found)")
            #expect(row.total == row.found + onlyOurs, "\(row.sector): total \(row.total)")
        }
        #expect(
            Set(refTotals.keys).isSubset(of: Set(ourDex.map(\.sector))), "a reference sector is missing from our dex")
    }
}
