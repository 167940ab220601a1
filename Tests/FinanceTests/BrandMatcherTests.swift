import Finance
import Testing

struct BrandMatcherTests {
    let matcher = BrandMatcher.shared

    @Test(arguments: [
        ("STARBUCKS COFFEE", "SBUX"), ("Super 8 by Wyndham", "WH"), ("the home depot", "HD"),
        ("Target Store", "TGT"), ("McDonald’s", "MCD"), ("Wal Mart", "WMT"), ("CVS/pharmacy", "CVS"),
        ("Starbucks Coffee Company #1234", "SBUX"), ("Super 8 by Wyndham Fresno Airport", "WH"),
        ("Holiday Inn Express & Suites Downtown", "IHG"), ("NESTLE", "NSRGY"), ("7-ELEVEN", "SVNDY"),
        ("Chase Bank", "JPM"), ("Delta Air Lines Terminal 4", "DAL"), ("Yum Brands", "YUM"),
        ("Restaurant Brands International Inc.", "QSR"), ("Block, Inc.", "XYZ"), ("Inditex", "IDEXY"),
    ])
    func matchesTheCascade(text: String, ticker: String) {
        #expect(matcher.match(text)?.entry.ticker == ticker, "\(text)")
    }

    @Test func directHits() throws {
        let hit = try #require(matcher.direct("  MCDONALDS "))
        #expect(hit.key == "mcdonalds" && hit.method == .direct && hit.entry.ticker == "MCD")
        #expect(matcher.direct("Wal-Mart")?.key == "wal-mart")
        #expect(matcher.direct("Nestle")?.entry.ticker == "NSRGY")
        // Loose equality folds diacritics and apostrophes.
        #expect(matcher.direct("Lancome")?.entry.ticker == "LRLCY")
        #expect(matcher.direct("Home Depot Store") == nil)
        #expect(matcher.direct("") == nil)
    }

    @Test func substringHits() throws {
        let hit = try #require(matcher.longestSubstring("STARBUCKS COFFEE #1234 Main St"))
        #expect(hit.method == .substring && hit.entry.ticker == "SBUX" && hit.key == "starbucks coffee")
        #expect(matcher.longestSubstring("Target Store")?.key == "target")
        #expect(matcher.longestSubstring("Super 8 by Wyndham")?.entry.ticker == "WH")
        // Longest key wins: "holiday inn express" over "holiday inn".
        #expect(matcher.longestSubstring("Holiday Inn Express Midtown")?.key == "holiday inn express")
        // Punctuation is a word boundary.
        #expect(matcher.longestSubstring("Shop at McDonald's, now!")?.entry.ticker == "MCD")
    }

    @Test func noFalseHitsInsideWords() {
        for text in [
            "Targeted Marketing Agency", "Fordham University", "Applebee Farm Stand", "Shellfish Shack",
            "Visalia Auto Body", "Artisan Bakery", "Hollywood Nails", "Costcutter", "Delta Dental of Ohio",
            "United States Post Office", "Lincoln Park Zoo", "Chasewood Apartments", "Kfcx Outlet",
            "Old Dominion University", "Mount Gilead Baptist Church", "Dupont Circle Hotel", "Roche Bros. Market",
            "The Crown Castle Inn", "Verano Taqueria", "Mesa Air Conditioning", "Polestar Pilates",
            "Cresco Family Dental",
            "Liquor Depot", "Canadian National Exhibition",
        ] {
            #expect(
                matcher.longestSubstring(text) == nil,
                "\(text) → \(String(describing: matcher.longestSubstring(text)?.key))")
        }
        // Short keys (< 4 characters) only ever match directly.
        #expect(matcher.longestSubstring("KFC Drive Thru") == nil)
        #expect(matcher.direct("KFC")?.entry.ticker == "YUM")
        // Direct-only common words still match exactly.
        #expect(matcher.direct("Delta")?.entry.ticker == "DAL")
        #expect(matcher.match("Applebee's Grill + Bar")?.entry.ticker == "DIN")
    }

    @Test func parentHits() throws {
        let hit = try #require(matcher.parent("Restaurant Brands International"))
        #expect(hit.method == .parent && hit.entry.ticker == "QSR")
        #expect(matcher.parent("a unit of Yum! Brands, Inc.")?.entry.ticker == "YUM")
        #expect(matcher.parent("Procter & Gamble Company")?.entry.ticker == "PG")
        #expect(matcher.parent("The Coca-Cola Company")?.entry.ticker == "KO")
        #expect(matcher.parent("General Mills cereal aisle")?.entry.ticker == "GIS")
        #expect(matcher.parent("News Corp")?.entry.ticker == "NWSA")
        // One-word parent names need the corporate suffix: the bare word is not a company.
        #expect(matcher.parent("news") == nil)
        #expect(matcher.parent("block party") == nil)
        // A two-word core that is a direct-only key needs its suffix as well.
        #expect(matcher.parent("State Street Corp")?.entry.ticker == "STT")
        #expect(matcher.match("State Street Tavern") == nil)
        #expect(matcher.match("Corner Bakery Cafe") == nil)
    }

    @Test func matchAnyPrefersDirectThenLongestSubstring() {
        // A direct hit on any line beats a longer substring elsewhere.
        let direct = matcher.matchAny(["Grand Opening at Target Plaza", "STARBUCKS"])
        #expect(direct?.entry.ticker == "SBUX" && direct?.method == .direct)
        #expect(matcher.matchAny(["Grand Opening", "STARBUCKS", "Drive Thru"])?.method == .direct)
        #expect(matcher.matchAny(["Grand Opening", "STARBUCKS", "Drive Thru"])?.entry.ticker == "SBUX")
        // Lines joined: a brand split over two lines.
        let split = matcher.matchAny(["THE HOME", "DEPOT", "more saving. more doing."])
        #expect(split?.entry.ticker == "HD" && split?.method == .substring)
        // Longest substring over all candidates.
        #expect(
            matcher.matchAny(["Welcome to Holiday Inn", "Holiday Inn Express lobby"])?.key == "holiday inn express")
        // Parent names last.
        #expect(matcher.matchAny(["a Restaurant Brands", "International company"])?.entry.ticker == "QSR")
        #expect(matcher.matchAny([]) == nil)
        #expect(matcher.matchAny(["", "   "]) == nil)
    }

    @Test func smallSeedMatcher() throws {
        let seed = try BrandSeed(
            json: #"""
                {"art": {"ticker": "ART", "exchange": "NYSE", "parent": "Art Co", "sector": "Materials", "isPublic": true},
                 "arts and crafts": {"ticker": "ARTS", "exchange": "NYSE", "parent": "Crafts Holdings Inc", "sector": "Materials", "isPublic": true}}
                """#)
        let small = BrandMatcher(seed: seed)
        #expect(small.longestSubstring("Smart Art Gallery") == nil, "3-character keys never match as substrings")
        #expect(small.longestSubstring("Big Arts and Crafts Fair")?.entry.ticker == "ARTS")
        #expect(small.direct("ART")?.entry.ticker == "ART")
        #expect(small.parent("Crafts") == nil)
        #expect(small.parent("Crafts Holdings")?.entry.ticker == "ARTS")
        #expect(small.parent("Crafts Holdings, Inc.")?.entry.ticker == "ARTS")
    }

    /// Two keys with the same loose form (`wal-mart`/`wal mart`) must mean the same listing.
    @Test func looseFormsDoNotCollideAcrossListings() {
        var byLoose: [String: String] = [:]
        var collisions: [String] = []
        let seed = BrandSeed.shared
        for key in seed.entries.keys.sorted() {
            guard let entry = seed.entries[key] else { continue }
            let loose = key.lowercased().filter { $0.isLetter || $0.isNumber }
            if let other = byLoose[loose], other != entry.ticker {
                collisions.append("\(key): \(other)/\(entry.ticker)")
            }
            byLoose[loose] = entry.ticker
        }
        #expect(collisions.isEmpty, "\(collisions)")
    }

    @Test func directOnlyKeysExistInTheSeed() {
        let missing = BrandMatcher.directOnlyKeys.filter { BrandSeed.shared.entries[$0] == nil }
        #expect(missing.isEmpty, "\(missing.sorted())")
    }
}
