import Contracts
import Finance
import Testing

struct BrandSeedTests {
    let seed = BrandSeed.shared

    @Test func decodesTheEmbeddedSeed() {
        #expect(seed.loadError == nil)
        #expect(seed.entries.count >= 350, "seed has \(seed.entries.count) keys")
        #expect(seed.tickers.count >= 250, "seed has \(seed.tickers.count) distinct tickers")
    }

    @Test func everyTickerHasTheTickerShape() {
        let bad = seed.tickers.filter { !BrandMatcher.isTickerShaped($0) || $0 != $0.uppercased() }
        #expect(bad.isEmpty, "not ticker-shaped: \(bad.sorted())")
    }

    @Test func everySectorIsCanonicalGICS() {
        let canonical = Set(SectorAliases.canonicalSectors)
        #expect(canonical.count == 11)
        let bad = seed.entries.filter { !canonical.contains($0.value.sector) }.map(\.key)
        #expect(bad.isEmpty, "non-canonical sectors: \(bad.sorted())")
        #expect(!seed.sectors.contains(SectorAliases.unknown))
    }

    @Test func keysAreNormalizedAndEntriesPublic() {
        for (key, entry) in seed.entries {
            #expect(BrandSeed.normalize(key) == key, "key not normalized: \(key)")
            #expect(entry.isPublic, "\(key) is not public")
            #expect(!entry.parent.isEmpty && !entry.exchange.isEmpty, "\(key) lacks parent/exchange")
        }
    }

    @Test func exchangesAreKnownVenues() {
        let venues: Set<String> = ["NYSE", "NASDAQ", "OTC", "TSX", "LSE", "BME", "CBOE"]
        let bad = seed.entries.filter { !venues.contains($0.value.exchange) }.map { "\($0.key): \($0.value.exchange)" }
        #expect(bad.isEmpty, "\(bad.sorted())")
    }

    /// Aliases and sibling brands of one listing agree on everything but the key.
    @Test func eachTickerHasOneExchangeSectorAndParent() {
        var byTicker: [String: SeedEntry] = [:]
        var conflicts: [String] = []
        for key in seed.entries.keys.sorted() {
            guard let entry = seed.entries[key] else { continue }
            if let first = byTicker[entry.ticker] {
                if first.exchange != entry.exchange || first.sector != entry.sector || first.parent != entry.parent {
                    conflicts.append("\(entry.ticker) via \(key)")
                }
            } else {
                byTicker[entry.ticker] = entry
            }
        }
        #expect(conflicts.isEmpty, "\(conflicts)")
    }

    @Test func aliasesPointAtTheSameListing() {
        let pairs: [(String, String, String)] = [
            ("mcdonald's", "mcdonalds", "MCD"), ("wendy's", "wendys", "WEN"), ("lowe's", "lowes", "LOW"),
            ("7-eleven", "seven eleven", "SVNDY"), ("at&t", "att", "T"), ("t-mobile", "tmobile", "TMUS"),
            ("coca-cola", "coke", "KO"), ("bath & body works", "bath and body works", "BBWI"),
            ("home depot", "the home depot", "HD"), ("sam's club", "walmart", "WMT"),
        ]
        for (a, b, ticker) in pairs {
            #expect(seed.entry(forKey: a)?.ticker == ticker, "\(a)")
            #expect(seed.entry(forKey: b)?.ticker == ticker, "\(b)")
        }
    }

    /// Spot checks of listings that changed recently or are easy to get wrong.
    @Test func currentListings() {
        let expected: [String: String] = [
            "facebook": "META", "instagram": "META", "google": "GOOGL", "youtube": "GOOGL", "heinz": "KHC",
            "kraft": "KHC", "kfc": "YUM", "taco bell": "YUM", "burger king": "QSR", "tim hortons": "QSR",
            "popeyes": "QSR", "square": "XYZ", "cash app": "XYZ", "discover": "COF", "foot locker": "DKS",
            "paramount+": "PSKY", "cbs": "PSKY", "whole foods": "AMZN", "dairy queen": "BRK.B", "geico": "BRK.B",
            "jack daniel's": "BF.B", "super 8": "WH", "sephora": "LVMUY", "nespresso": "NSRGY", "toyota": "TM",
            "shell": "SHEL", "chase": "JPM", "starbucks": "SBUX", "target": "TGT", "cvs": "CVS",
            "amgen": "AMGN", "asml": "ASML", "bristol-myers squibb": "BMY", "redfin": "RKT", "mesa airlines": "RJET",
            "boston properties": "BXP", "bny mellon": "BK", "porsche": "DRPRY", "mack trucks": "VLVLY",
            "asbury automotive": "ABG", "jira": "TEAM", "comerica": "FITB", "realty income": "O",
        ]
        for (key, ticker) in expected.sorted(by: { $0.key < $1.key }) {
            #expect(seed.entry(forKey: key)?.ticker == ticker, "\(key)")
        }
        #expect(seed.entry(forTicker: "mcd")?.parent == "McDonald's Corp")
        #expect(seed.contains(ticker: " sbux "))
    }

    /// Brands of private companies (or ones taken private) are absent: not in seed = private.
    @Test func privateBrandsAreAbsent() {
        for key in [
            "chick-fil-a", "subway", "in-n-out", "trader joe's", "aldi", "ikea", "publix", "wawa",
            "walgreens", "skechers", "red bull", "dunkin'", "arby's", "panera bread", "nordstrom", "pringles",
            "frosted flakes", "big lots", "spirit airlines", "reebok", "sperry", "denny's",
        ] {
            #expect(seed.entry(forKey: key) == nil, "\(key) should not be in the seed")
        }
    }

    @Test func decodesAnotherSeedText() throws {
        let other = try BrandSeed(
            json:
                #"{"Acme  Widgets": {"ticker": "ACME", "exchange": "NYSE", "parent": "Acme Corp", "sector": "Industrials", "isPublic": true}}"#
        )
        #expect(other.entry(forKey: "acme widgets")?.ticker == "ACME")
        #expect(other.tickers == ["ACME"])
        #expect(throws: (any Error).self) { try BrandSeed(json: "[1, 2]") }
    }
}

struct NormalizationTests {
    @Test(arguments: [
        ("  McDonald’s  ", "mcdonald's"),
        ("MCDONALD‘S", "mcdonald's"),
        ("Macyʼs", "macy's"),
        ("The\tHome \n  Depot", "the home depot"),
        ("STARBUCKS   COFFEE", "starbucks coffee"),
        ("", ""),
        ("   ", ""),
        ("Nestlé", "nestlé"),
        ("A\r\nB\u{0B}C\u{0C}D\u{1F}E", "a b c d\u{1F}e"),
        ("  Ben & JERRY'S\t", "ben & jerry's"),
    ])
    func normalizeBrand(input: String, expected: String) {
        #expect(BrandSeed.normalize(input) == expected)
    }

    @Test(arguments: [
        ("AAPL", true), ("$aapl", true), ("BRK.B", true), ("brk.b", true), (" msft ", true), ("A", true),
        ("ABCDEF", true), ("ABCDEFG", false), ("1ABC", false), ("$", false), ("", false), ("AB-C", false),
        ("$$AAPL", false), ("STAR BUCKS", false), ("X1", true),
    ])
    func tickerShape(input: String, expected: Bool) {
        #expect(BrandMatcher.isTickerShaped(input) == expected)
    }
}
