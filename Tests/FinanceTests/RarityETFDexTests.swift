import Contracts
import Finance
import Testing

struct RarityTests {
    /// docs/COMPATIBILITY.md#rarity: not in seed → legendary; in seed and isPublic == false → rare; else common;
    /// uncommon never.
    @Test(
        arguments: [
            // (ticker, comparable, isPublic, expected)
            ("MCD", nil, true, DexRarity.common),  // public seed brand
            (" mcd ", nil, true, .common),  // trimmed + uppercased
            ("MCD", nil, nil, .common),  // unknown isPublic counts as public
            (nil, "SBUX", false, .rare),  // private brand, seed comparable
            ("", "sbux", false, .rare),  // empty ticker falls through to comparable
            (nil, "ZZZZ", false, .legendary),  // private brand, unknown comparable
            (nil, nil, false, .legendary),  // private, no comparable
            ("ZZZZ", nil, true, .legendary),  // public but not in the seed (resolved by quote)
            ("MCD", "ZZZZ", false, .rare),  // ticker wins over comparable
            ("ZZZZ", "MCD", true, .legendary),  // ticker wins even when it is not in the seed
            (nil, nil, nil, .legendary),
        ] as [(String?, String?, Bool?, DexRarity)])
    func classify(ticker: String?, comparable: String?, isPublic: Bool?, expected: DexRarity) {
        #expect(RarityClassifier.classify(ticker: ticker, comparable: comparable, isPublic: isPublic) == expected)
    }

    @Test func neverUncommonAndUsesTheGivenSeed() throws {
        let seed = try BrandSeed(
            json:
                #"{"acme": {"ticker": "ACME", "exchange": "NYSE", "parent": "Acme", "sector": "Energy", "isPublic": true}}"#
        )
        #expect(RarityClassifier.classify(ticker: "ACME", comparable: nil, isPublic: true, seed: seed) == .common)
        #expect(RarityClassifier.classify(ticker: "MCD", comparable: nil, isPublic: true, seed: seed) == .legendary)
        for ticker in BrandSeed.shared.tickers.prefix(50) {
            for isPublic in [true, false, nil] as [Bool?] {
                #expect(RarityClassifier.classify(ticker: ticker, comparable: nil, isPublic: isPublic) != .uncommon)
            }
        }
        #expect(RarityClassifier.effectiveTicker(ticker: "  ", comparable: " xyz ") == "XYZ")
        #expect(Rarity.legendary.rawValue == "legendary")
    }
}

struct SectorETFTests {
    @Test(arguments: [
        ("restaurants", "Consumer Discretionary"), ("Consumer Discretionary", "Consumer Discretionary"),
        ("tech", "Information Technology"), ("Technology", "Information Technology"),
        ("consumer staples sector", "Consumer Staples"), ("Health-Care", "Health Care"),
        ("healthcare", "Health Care"), ("oil & gas", "Energy"), ("Oil and Gas", "Energy"),
        ("telecom", "Communication Services"), ("banks", "Financials"), ("REITs", "Real Estate"),
        ("utility", "Utilities"), ("airlines", "Industrials"), ("chemicals", "Materials"),
        ("  CONSUMER   CYCLICAL ", "Consumer Discretionary"), ("beverages", "Consumer Staples"),
        ("Fast food restaurant chain", "Consumer Discretionary"), ("Food & Beverage", "Consumer Staples"),
        ("an oil and gas company", "Energy"),
    ])
    func aliases(input: String, canonical: String) {
        #expect(SectorAliases.canonical(input) == canonical)
    }

    @Test func unknownSectors() {
        #expect(SectorAliases.canonical("") == nil)
        #expect(SectorAliases.canonical("starbucks") == nil)
        #expect(SectorAliases.canonical("widgets and gizmos") == nil)
        #expect(SectorAliases.canonical("biotechnical widgets") == nil, "whole words only")
        #expect(SectorAliases.canonical("power tools") == nil, "equally long aliases of two sectors are ambiguous")
    }

    @Test func everySectorHasThreeKnownETFs() {
        for sector in SectorAliases.canonicalSectors {
            let etfs = SectorETFs.top3(forSector: sector)
            #expect(etfs.count == 3, "\(sector)")
            #expect(Set(etfs.map(\.ticker)).count == 3)
            for etf in etfs {
                #expect(SectorETFs.isKnownETF(etf.ticker))
                #expect(TickerValidation.isValidCandidate(etf.ticker), "\(etf.ticker)")
                #expect(!etf.name.isEmpty)
            }
        }
        #expect(SectorETFs.bySector.count == 11)
    }

    @Test func fallbackFromSectorOrBrand() {
        #expect(SectorETFs.fallback(sectorOrQuery: "Consumer Discretionary").map(\.ticker) == ["XLY", "VCR", "FDIS"])
        #expect(SectorETFs.fallback(sectorOrQuery: "restaurants").map(\.ticker) == ["XLY", "VCR", "FDIS"])
        #expect(SectorETFs.fallback(sectorOrQuery: "tech").map(\.ticker) == ["XLK", "VGT", "IYW"])
        // A brand: its seed sector.
        #expect(SectorETFs.fallback(sectorOrQuery: "Coca-Cola").map(\.ticker) == ["XLP", "VDC", "IYK"])
        #expect(SectorETFs.fallback(sectorOrQuery: "Chase Bank").first?.ticker == "XLF")
        #expect(SectorETFs.fallback(sectorOrQuery: "Shell").first?.ticker == "XLE")
        #expect(SectorETFs.fallback(sectorOrQuery: "Joe's Garage").isEmpty)
        #expect(SectorETFs.fallback(sectorOrQuery: "   ").isEmpty)
    }

    @Test func knownETFAllowList() {
        #expect(SectorETFs.contractAllowList.count == 30)
        for symbol in ["XLP", "VDC", "IYK", "XLY", "SPY", "QQQ", "JETS", "PEJ", "xlre"] {
            #expect(SectorETFs.isKnownETF(symbol), "\(symbol)")
        }
        #expect(!SectorETFs.isKnownETF("MCD"))
        for symbol in SectorETFs.knownETFs { #expect(SectorETFs.names[symbol] != nil, "\(symbol) has no name") }
    }

    @Test func tickerValidation() {
        for good in ["MCD", "V", "GOOGL", "XLY", "COST", "LOW", "ALL", "AN"] {
            #expect(TickerValidation.isValidCandidate(good), "\(good)")
        }
        for bad in [
            "THE", "AND", "USA", "CEO", "ETF", "INC", "NY", "AI", "NYP", "MSHS", "MOUNT", "", "GOOGLE",
            "BRK.B", "mcd", "M1", "IT", "NEWS",
        ] {
            #expect(!TickerValidation.isValidCandidate(bad), "\(bad)")
        }
        // A genuine seed listing is never denied.
        let denied = TickerValidation.denyList.intersection(BrandSeed.shared.tickers)
        #expect(denied.isEmpty, "seed tickers on the deny list: \(denied.sorted())")
    }
}

struct DexSectorTests {
    @Test func countsEverySeedSectorSortedByName() {
        let counts = DexSectors.compute(effectiveTickers: ["MCD", "mcd", " SBUX ", "KO", "ZZZZ", ""])
        #expect(counts.map(\.sector) == BrandSeed.shared.sectors)
        #expect(counts.map(\.sector) == counts.map(\.sector).sorted())
        #expect(counts.count == 11)
        let byName = Dictionary(uniqueKeysWithValues: counts.map { ($0.sector, $0) })
        #expect(byName["Consumer Discretionary"]?.found == 2)
        #expect(byName["Consumer Staples"]?.found == 1)
        #expect(byName["Energy"]?.found == 0)
        let total = counts.reduce(0) { $0 + $1.total }
        #expect(total == BrandSeed.shared.tickers.count, "each ticker sits in exactly one sector")
    }

    @Test func aliasedKeysCountOnceAndUnknownSectorsAreBucketed() throws {
        let seed = try BrandSeed(
            json: #"""
                {"mcdonald's": {"ticker": "MCD", "exchange": "NYSE", "parent": "McDonald's", "sector": "Consumer Discretionary", "isPublic": true},
                 "mcdonalds": {"ticker": "MCD", "exchange": "NYSE", "parent": "McDonald's", "sector": "Consumer Discretionary", "isPublic": true},
                 "wendy's": {"ticker": "WEN", "exchange": "NASDAQ", "parent": "Wendy's", "sector": "restaurants", "isPublic": true},
                 "mystery": {"ticker": "MYST", "exchange": "OTC", "parent": "Mystery", "sector": "Widgets", "isPublic": true}}
                """#)
        let counts = DexSectors.compute(effectiveTickers: ["MCD", "WEN", "MYST"], seed: seed)
        #expect(
            counts == [
                DexSector(sector: "Consumer Discretionary", found: 2, total: 2),
                DexSector(sector: "Unknown", found: 1, total: 1),
            ])
        #expect(DexSectors.completed(counts) == ["Consumer Discretionary", "Unknown"])
        let none = DexSectors.compute(effectiveTickers: [String](), seed: seed)
        #expect(none.map(\.found) == [0, 0])
        #expect(DexSectors.completed(none).isEmpty)
    }
}
