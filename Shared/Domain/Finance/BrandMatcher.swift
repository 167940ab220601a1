/// A seed hit (`BrandMatcher.Match`).
typealias BrandMatch = BrandMatcher.Match

/// Offline brand → listing matching over the curated seed: the first steps of the `resolveTicker` cascade
/// (docs/COMPATIBILITY.md#identify-processing, #brand-join): seed direct → seed substring (keys ≥ 4 characters, longest
/// wins) → parent-company name.
///
/// Matching rules (all on `BrandSeed.normalize`d text):
/// * **direct** — the text equals a seed key; failing that, their *loose* forms are equal (diacritics folded,
///   apostrophes dropped, other punctuation as spaces: `Wal Mart` = `wal-mart`, `Nestle` = `nestlé`).
/// * **substring** — a seed key of at least `minimumSubstringKeyLength` characters occurs in the text **as whole
///   words**: in loose forms, the key's tokens must appear as consecutive whole tokens of the text. So `target`
///   hits "Target Store" but not "targeted", `ford` not "Fordham", `apple` not "Applebee's". The longest key
///   (in characters) wins; ties go to the alphabetically first key. Keys that are ordinary words or place/person
///   names (`directOnlyKeys`, e.g. `delta`, `chase`, `united`, `shell`) are never used for substring hits —
///   they still match directly, and their longer spellings (`delta air lines`, `chase bank`) match as substrings.
/// * **parent** — the text equals or contains (whole words) a listed parent company's name, loosely and with
///   corporate suffixes (`Inc`, `Corp`, `Co`, `plc`, `Holdings`, `Group`, a leading `The`…) ignored when the
///   remaining name has ≥ 2 words (`Yum Brands`, `Restaurant Brands International`); a one-word remainder
///   matches only when the text spells a suffix too (`Block, Inc.` → XYZ, but not the word "block").
///   A core that is a direct-only key (`State Street`) is likewise matched only with its suffix.
///   A parenthesised alias in a parent name (`… (Inditex)`) is a parent name of its own. Longest name wins.
public struct BrandMatcher: Sendable {
    /// How a match was found.
    public enum Method: String, Sendable, Codable, CaseIterable {
        case direct, substring, parent
    }

    /// A seed hit: the matched (or, for `parent`, representative) seed key, its entry and the method.
    public struct Match: Sendable, Hashable {
        public let key: String
        public let entry: SeedEntry
        public let method: Method

        public init(key: String, entry: SeedEntry, method: Method) {
            self.key = key
            self.entry = entry
            self.method = method
        }
    }

    /// A matcher over `BrandSeed.shared`.
    public static let shared = BrandMatcher(seed: .shared)

    /// Substring matching considers only seed keys at least this long (contract: ≥ 4 characters).
    static let minimumSubstringKeyLength = 4

    /// Seed keys that are common words, place or person names: direct matches only, never substring hits.
    public static let directOnlyKeys: Set<String> = [
        "7-11", "adobe", "aesop", "affirm", "alexa", "allegiant", "ally", "alphabet", "angi", "anthem", "apple",
        "argos", "arrowhead", "atkins", "baileys", "batiste", "baxter", "beefeater", "behr", "bing", "blizzard",
        "bounty", "braun", "buckle", "bumble", "burlington", "camel", "canadian national", "canadian pacific",
        "carnival", "cascade", "caterpillar", "celine", "celsius", "chase", "chime", "citi", "clarion", "coach",
        "coleman", "converse", "corona", "crest", "crown castle", "cummins", "dawn", "degree", "dell", "delta",
        "depend", "dillons", "discover", "dodge", "dove", "dupont", "emerson", "essie", "fairmont", "gerber",
        "gilead", "glad", "good sam", "grab", "hennessy", "hims", "hollister", "hostess", "huntington", "iberia",
        "ibis", "jameson", "jared", "journeys", "kayak", "kingsford", "la mer", "lennox", "lincoln", "linde",
        "marathon", "marlboro", "martell", "merrill", "mesa air", "meta", "micron", "no frills", "oakley",
        "occidental", "old dominion", "oracle", "outback", "overstock", "pacifico", "peacock", "polaris",
        "polestar", "prana", "progressive", "quaker", "randalls", "regions", "rhode", "roche", "rogers", "ross",
        "ryder", "scotts", "shell", "showtime", "sinclair", "skyworks", "slack", "snowflake", "southwest", "spam",
        "spectrum", "speedway", "sprint", "sprouts", "square", "starry", "state street", "stryker", "swanson",
        "tecate", "the gap", "tiffany", "tinder", "travelers", "trident", "trojan", "united", "vans", "velo",
        "ventas", "verano", "visa", "wellcare", "whirlpool", "workday", "wrangler", "wynn", "yeti", "zara", "zoom",
    ]

    private struct SubstringKey: Sendable {
        let key: String
        /// The loose form wrapped in spaces, for whole-token search in a space-wrapped text.
        let padded: String
        let looseLength: Int
        let entry: SeedEntry
    }

    private struct ParentName: Sendable {
        /// Loose form of the full name (`yum brands`), its suffix-stripped core and the core's token count.
        let loose: String
        let core: String
        let coreTokens: Int
        let key: String
        let entry: SeedEntry
    }

    private let seed: BrandSeed
    private let looseIndex: [String: String]
    private let substringKeys: [SubstringKey]
    private let parents: [ParentName]

    /// The matcher over `BrandSeed.shared` (a cheap copy of `BrandMatcher.shared`; the indexes are built once).
    public init() {
        self = Self.shared
    }

    /// A matcher over any seed (tests use small ones). Builds the indexes: prefer `shared`/`init()` for the seed.
    public init(seed: BrandSeed) {
        self.seed = seed
        let sortedKeys = seed.entries.keys.sorted()
        var looseIndex: [String: String] = [:]
        var substringKeys: [SubstringKey] = []
        var parentKeys: [String: (key: String, entry: SeedEntry)] = [:]
        for key in sortedKeys {
            guard let entry = seed.entries[key] else { continue }
            let loose = TextForms.loose(key)
            if !loose.isEmpty, looseIndex[loose] == nil { looseIndex[loose] = key }
            if key.count >= Self.minimumSubstringKeyLength, !loose.isEmpty, !Self.directOnlyKeys.contains(key) {
                substringKeys.append(
                    SubstringKey(key: key, padded: " " + loose + " ", looseLength: loose.count, entry: entry))
            }
            let parentID = entry.parent + "\u{0}" + entry.ticker
            if parentKeys[parentID] == nil { parentKeys[parentID] = (key, entry) }
        }
        substringKeys.sort { a, b in
            a.key.count != b.key.count ? a.key.count > b.key.count : a.key < b.key
        }
        var parents: [ParentName] = []
        for parentID in parentKeys.keys.sorted() {
            guard let (key, entry) = parentKeys[parentID] else { continue }
            for name in Self.parentNames(entry.parent) {
                let loose = TextForms.loose(BrandSeed.normalize(name))
                guard !loose.isEmpty else { continue }
                let core = Self.stripSuffixes(loose)
                parents.append(
                    ParentName(
                        loose: loose, core: core, coreTokens: TextForms.tokens(core).count, key: key, entry: entry))
            }
        }
        self.looseIndex = looseIndex
        self.substringKeys = substringKeys
        self.parents = parents
    }

    /// Direct hit: the normalized text is a seed key (or loosely equal to one).
    public func direct(_ text: String) -> Match? {
        let normalized = BrandSeed.normalize(text)
        guard !normalized.isEmpty else { return nil }
        if let entry = seed.entries[normalized] {
            return Match(key: normalized, entry: entry, method: .direct)
        }
        if let key = looseIndex[TextForms.loose(normalized)], let entry = seed.entries[key] {
            return Match(key: key, entry: entry, method: .direct)
        }
        return nil
    }

    /// Longest seed key (≥ 4 characters, not direct-only) contained in the text as whole words.
    public func longestSubstring(_ text: String) -> Match? {
        let loose = TextForms.loose(BrandSeed.normalize(text))
        guard !loose.isEmpty else { return nil }
        let padded = " " + loose + " "
        let length = loose.count
        for candidate in substringKeys where candidate.looseLength <= length {
            if padded.contains(candidate.padded) {
                return Match(key: candidate.key, entry: candidate.entry, method: .substring)
            }
        }
        return nil
    }

    /// Parent-company hit: the text equals or contains a listed parent's name (see the type's rules).
    public func parent(_ text: String) -> Match? {
        parentHit(text).map { $0.match }
    }

    /// The cascade for one text: direct → substring → parent.
    public func match(_ text: String) -> Match? {
        direct(text) ?? longestSubstring(text) ?? parent(text)
    }

    /// The cascade over several OCR candidates (e.g. each line of visible text). The candidates joined with
    /// spaces are tried as one more candidate, so a brand split over two lines still matches. Order of
    /// preference: a direct hit on the earliest candidate; else the longest substring key over all candidates
    /// (ties → earliest candidate); else the longest parent name (ties → earliest candidate).
    public func matchAny(_ candidates: [String]) -> Match? {
        var texts = candidates.map(BrandSeed.normalize).filter { !$0.isEmpty }
        if texts.count > 1 { texts.append(texts.joined(separator: " ")) }
        for text in texts {
            if let hit = direct(text) { return hit }
        }
        var best: Match?
        for text in texts {
            if let hit = longestSubstring(text), hit.key.count > (best?.key.count ?? 0) { best = hit }
        }
        if let best { return best }
        var bestParent: (match: Match, length: Int)?
        for text in texts {
            if let hit = parentHit(text), hit.length > (bestParent?.length ?? 0) { bestParent = hit }
        }
        return bestParent?.match
    }

    /// The ticker shape (docs/COMPATIBILITY.md#search-intent): without one leading `$`, the uppercased text matches
    /// `^[A-Z][A-Z0-9.]{0,5}$`.
    public static func isTickerShaped(_ s: String) -> Bool {
        var bare = Substring(TextForms.trimmed(s))
        if bare.first == "$" { bare = bare.dropFirst() }
        let upper = bare.uppercased()
        guard (1...6).contains(upper.unicodeScalars.count), let first = upper.unicodeScalars.first,
            ("A"..."Z").contains(first)
        else { return false }
        return upper.unicodeScalars.dropFirst().allSatisfy {
            ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "."
        }
    }

    // MARK: - Parent matching

    private func parentHit(_ text: String) -> (match: Match, length: Int)? {
        let loose = TextForms.loose(BrandSeed.normalize(text))
        guard !loose.isEmpty else { return nil }
        let textCore = Self.stripSuffixes(loose)
        let textHasSuffix = textCore != loose
        var best: (parent: ParentName, length: Int)?
        for parent in parents {
            var length = 0
            if loose == parent.loose || (parent.loose.count >= 4 && TextForms.containsTokens(loose, parent.loose)) {
                length = parent.loose.count
            } else if !parent.core.isEmpty {
                if parent.coreTokens >= 2, !Self.directOnlyKeys.contains(parent.core),
                    TextForms.containsTokens(loose, parent.core)
                {
                    length = parent.core.count
                } else if textHasSuffix, textCore == parent.core, parent.core.count >= 2 {
                    length = parent.core.count
                }
            }
            if length > (best?.length ?? 0) { best = (parent, length) }
        }
        guard let best else { return nil }
        return (Match(key: best.parent.key, entry: best.parent.entry, method: .parent), best.length)
    }

    /// Trailing corporate-form words (and a leading "the") that do not identify a company.
    private static let corporateSuffixes: Set<Substring> = [
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
                tokens.removeLast(2)  // "A/S"
            } else {
                break
            }
        }
        return tokens.joined(separator: " ")
    }

    /// `"Industria de Diseño Textil SA (Inditex)"` → the name without the parenthesis, and `Inditex`.
    static func parentNames(_ parent: String) -> [String] {
        guard let open = parent.firstIndex(of: "("), let close = parent[open...].firstIndex(of: ")") else {
            return [parent]
        }
        let main = String(parent[..<open]) + String(parent[parent.index(after: close)...])
        let alias = String(parent[parent.index(after: open)..<close])
        return [TextForms.trimmed(main), TextForms.trimmed(alias)].filter { !$0.isEmpty }
    }
}
