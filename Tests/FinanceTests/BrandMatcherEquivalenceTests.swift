import Testing

@testable import Finance

/// The matcher over numbered tokens (first-token indexes, no string built per pair) gives the answers of the
/// earlier string matcher, kept here as `StringMatcher`, on names made from the whole brand seed.
struct BrandMatcherEquivalenceTests {
    let matcher = BrandMatcher.shared
    let reference = StringMatcher(seed: .shared)

    /// Place-like names, one from every seed key and one from every parent name, the forms taken in turn (the
    /// string matcher is slow in a debug build): the key shouted with a store number, inside other words, its first
    /// word alone with other words, one word short; the parent as written, with "The … Group", its first two words
    /// with ", Inc.".
    static let names: [String] = {
        let seed = BrandSeed.shared
        var names = [
            "Starbucks", "Corner Books", "Walmart Supercenter", "CVS/pharmacy #4021", "Shell", "Chevron Gas",
            "McDonald’s", "Bank of America Financial Center", "Wells Fargo Bank", "The Home Depot",
            "Whole Foods Market", "Trader Joe's", "7-Eleven", "Dunkin'", "Chipotle Mexican Grill",
            "Holiday Inn Express & Suites", "Hilton Garden Inn Downtown", "Delta Dental of Ohio", "Targeted Marketing",
            "Fordham University", "Applebee's Grill + Bar", "State Street Tavern", "Block, Inc.", "Yum! Brands",
            "Nestlé Waters", "Crêperie Lancôme", "Café Zürich", "A/S Møller", "the", "", "  ", "#1",
        ]
        for (index, key) in seed.entries.keys.sorted().enumerated() {
            let words = key.split(separator: " ")
            switch index % 4 {
            case 0: names.append(key.uppercased() + " #12")
            case 1: names.append("Downtown " + key + " Plaza")
            case 2: names.append(words.prefix(1).joined() + " Corner Shop")
            default: names.append(words.count > 1 ? words.dropLast().joined(separator: " ") : key + "s")
            }
        }
        for (index, parent) in Set(seed.entries.values.map(\.parent)).sorted().enumerated() {
            switch index % 3 {
            case 0: names.append(parent)
            case 1: names.append("The " + parent + " Group")
            default: names.append(parent.split(separator: " ").prefix(2).joined(separator: " ") + ", Inc.")
            }
        }
        return names
    }()

    @Test func everyStepAnswersAsTheStringMatcher() {
        var differences: [String] = []
        for name in Self.names {
            let direct = reference.direct(name)
            let substring = reference.longestSubstring(name)
            let parent = reference.parentHit(name)?.match
            if matcher.direct(name) != direct { differences.append("direct \(name)") }
            if matcher.longestSubstring(name) != substring { differences.append("substring \(name)") }
            if matcher.parent(name) != parent { differences.append("parent \(name)") }
            if matcher.match(name) != direct ?? substring ?? parent { differences.append("match \(name)") }
        }
        #expect(Self.names.count > 2_900)
        #expect(differences.isEmpty, "\(differences.prefix(20))")
    }

    @Test func matchAnyAnswersAsTheStringMatcher() {
        var differences: [String] = []
        let names = Self.names
        for index in stride(from: 0, to: names.count, by: 9) {
            let pair = [names[index], names[(index * 31 + 5) % names.count]]
            if matcher.matchAny(pair) != reference.matchAny(pair) { differences.append("\(pair)") }
        }
        #expect(differences.isEmpty, "\(differences.prefix(20))")
    }

    @Test func tokenRuns() {
        var vocabulary = TokenVocabulary()
        let holiday = vocabulary.add("holiday inn")
        let express = vocabulary.add("holiday inn express")
        let text = vocabulary.numbers(of: TextForms.tokens("welcome to holiday inn express"))
        #expect(text.prefix(2) == [TokenVocabulary.unknown, TokenVocabulary.unknown])
        #expect(TokenRuns.occurs(holiday, in: text) && TokenRuns.occurs(express, in: text))
        #expect(TokenRuns.occurs(express, in: text, at: 2) && !TokenRuns.occurs(express, in: text, at: 3))
        #expect(!TokenRuns.occurs(express, in: Array(text.prefix(4))))
        #expect(!TokenRuns.occurs([], in: text) && !TokenRuns.occurs(holiday, in: []))
    }

    @Test(arguments: [
        ("the coca cola company", "coca cola"), ("a p moller maersk a s", "a p moller maersk"), ("the", "the"),
        ("block inc", "block"), ("inc", "inc"), ("yum brands", "yum brands"), ("", ""),
    ])
    func coreDropsTheAndSuffixes(loose: String, core: String) {
        #expect(BrandMatcher.stripSuffixes(loose) == core)
    }
}

/// The matcher as it was before the numbered tokens: every substring key and parent name searched in the text as a
/// space-padded string, in preference order. Kept only as the reference the equivalence tests compare against.
struct StringMatcher {
    struct SubstringKey {
        let key: String
        let padded: String
        let looseLength: Int
        let entry: SeedEntry
    }

    struct ParentName {
        let loose: String
        let core: String
        let coreTokens: Int
        let key: String
        let entry: SeedEntry
    }

    let seed: BrandSeed
    var looseIndex: [String: String] = [:]
    var substringKeys: [SubstringKey] = []
    var parents: [ParentName] = []

    init(seed: BrandSeed) {
        self.seed = seed
        var parentKeys: [String: (key: String, entry: SeedEntry)] = [:]
        for key in seed.entries.keys.sorted() {
            guard let entry = seed.entries[key] else { continue }
            let loose = TextForms.loose(key)
            if !loose.isEmpty, looseIndex[loose] == nil { looseIndex[loose] = key }
            if key.count >= 4, !loose.isEmpty, !BrandMatcher.directOnlyKeys.contains(key) {
                substringKeys.append(
                    SubstringKey(key: key, padded: " " + loose + " ", looseLength: loose.count, entry: entry))
            }
            let parentID = entry.parent + "\u{0}" + entry.ticker
            if parentKeys[parentID] == nil { parentKeys[parentID] = (key, entry) }
        }
        substringKeys.sort { a, b in a.key.count != b.key.count ? a.key.count > b.key.count : a.key < b.key }
        for parentID in parentKeys.keys.sorted() {
            guard let (key, entry) = parentKeys[parentID] else { continue }
            for name in BrandMatcher.parentNames(entry.parent) {
                let loose = TextForms.loose(BrandSeed.normalize(name))
                guard !loose.isEmpty else { continue }
                let core = Self.stripSuffixes(loose)
                parents.append(
                    ParentName(
                        loose: loose, core: core, coreTokens: TextForms.tokens(core).count, key: key, entry: entry))
            }
        }
    }

    func direct(_ text: String) -> BrandMatch? {
        let normalized = BrandSeed.normalize(text)
        guard !normalized.isEmpty else { return nil }
        if let entry = seed.entries[normalized] { return BrandMatch(key: normalized, entry: entry, method: .direct) }
        if let key = looseIndex[TextForms.loose(normalized)], let entry = seed.entries[key] {
            return BrandMatch(key: key, entry: entry, method: .direct)
        }
        return nil
    }

    func longestSubstring(_ text: String) -> BrandMatch? {
        let loose = TextForms.loose(BrandSeed.normalize(text))
        guard !loose.isEmpty else { return nil }
        let padded = " " + loose + " "
        for candidate in substringKeys where candidate.looseLength <= loose.count {
            if padded.contains(candidate.padded) {
                return BrandMatch(key: candidate.key, entry: candidate.entry, method: .substring)
            }
        }
        return nil
    }

    func parentHit(_ text: String) -> (match: BrandMatch, length: Int)? {
        let loose = TextForms.loose(BrandSeed.normalize(text))
        guard !loose.isEmpty else { return nil }
        let textCore = Self.stripSuffixes(loose)
        let textHasSuffix = textCore != loose
        var best: (parent: ParentName, length: Int)?
        for parent in parents {
            var length = 0
            if loose == parent.loose || (parent.loose.count >= 4 && Self.containsTokens(loose, parent.loose)) {
                length = parent.loose.count
            } else if !parent.core.isEmpty {
                if parent.coreTokens >= 2, !BrandMatcher.directOnlyKeys.contains(parent.core),
                    Self.containsTokens(loose, parent.core)
                {
                    length = parent.core.count
                } else if textHasSuffix, textCore == parent.core, parent.core.count >= 2 {
                    length = parent.core.count
                }
            }
            if length > (best?.length ?? 0) { best = (parent, length) }
        }
        guard let best else { return nil }
        return (BrandMatch(key: best.parent.key, entry: best.parent.entry, method: .parent), best.length)
    }

    func matchAny(_ candidates: [String]) -> BrandMatch? {
        var texts = candidates.map(BrandSeed.normalize).filter { !$0.isEmpty }
        if texts.count > 1 { texts.append(texts.joined(separator: " ")) }
        for text in texts {
            if let hit = direct(text) { return hit }
        }
        var best: BrandMatch?
        for text in texts {
            if let hit = longestSubstring(text), hit.key.count > (best?.key.count ?? 0) { best = hit }
        }
        if let best { return best }
        var bestParent: (match: BrandMatch, length: Int)?
        for text in texts {
            if let hit = parentHit(text), hit.length > (bestParent?.length ?? 0) { bestParent = hit }
        }
        return bestParent?.match
    }

    static func containsTokens(_ haystack: String, _ needle: String) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return false }
        return (" " + haystack + " ").contains(" " + needle + " ")
    }

    static let corporateSuffixes: Set<Substring> = [
        "inc", "incorporated", "corp", "corporation", "co", "company", "companies", "plc", "ltd", "limited",
        "llc", "lp", "sa", "ag", "nv", "se", "ab", "spa", "oyj", "holdings", "holding", "group", "and",
    ]

    static func stripSuffixes(_ loose: String) -> String {
        var tokens = TextForms.tokens(loose)
        if tokens.first == "the", tokens.count > 1 { tokens.removeFirst() }
        while tokens.count > 1 {
            if let last = tokens.last, corporateSuffixes.contains(last) {
                tokens.removeLast()
            } else if tokens.count > 2, tokens[tokens.count - 2] == "a", tokens[tokens.count - 1] == "s" {
                tokens.removeLast(2)
            } else {
                break
            }
        }
        return tokens.joined(separator: " ")
    }
}
