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
        /// The loose form's tokens (`TokenVocabulary` numbers).
        let tokens: [Int]
        let entry: SeedEntry
    }

    private struct ParentName: Sendable {
        /// Tokens of the loose full name (`yum brands`) and of its suffix-stripped core, with their lengths in
        /// characters (the longest name wins).
        let looseTokens: [Int]
        let looseLength: Int
        let coreTokens: [Int]
        let coreLength: Int
        let coreIsDirectOnly: Bool
        let key: String
        let entry: SeedEntry
    }

    /// A text prepared once for the three steps: normalized, its loose form and that form's tokens (as seed
    /// vocabulary numbers, and the range left when corporate suffixes are stripped).
    private struct Text {
        let normalized: String
        let loose: String
        let tokens: [Int]
        let core: Range<Int>
    }

    private let seed: BrandSeed
    private let looseIndex: [String: String]
    private let vocabulary: TokenVocabulary
    /// Substring keys in preference order (longest key first, then alphabetical): a key's rank is its index.
    private let substringKeys: [SubstringKey]
    /// First token → the ranks of the substring keys that start with it, ascending.
    private let substringRanksByFirstToken: [Int: [Int]]
    private let parents: [ParentName]
    /// First token of a parent's full name or core → the indexes of those parents, ascending.
    private let parentsByFirstToken: [Int: [Int]]

    /// The matcher over `BrandSeed.shared` (a cheap copy of `BrandMatcher.shared`; the indexes are built once).
    public init() {
        self = Self.shared
    }

    /// A matcher over any seed (tests use small ones). Builds the indexes: prefer `shared`/`init()` for the seed.
    public init(seed: BrandSeed) {
        self.seed = seed
        let sortedKeys = seed.entries.keys.sorted()
        var looseIndex: [String: String] = [:]
        var vocabulary = TokenVocabulary()
        var substringKeys: [SubstringKey] = []
        var parentKeys: [String: (key: String, entry: SeedEntry)] = [:]
        for key in sortedKeys {
            guard let entry = seed.entries[key] else { continue }
            let loose = TextForms.loose(key)
            if !loose.isEmpty, looseIndex[loose] == nil { looseIndex[loose] = key }
            if key.count >= Self.minimumSubstringKeyLength, !loose.isEmpty, !Self.directOnlyKeys.contains(key) {
                substringKeys.append(SubstringKey(key: key, tokens: vocabulary.add(loose), entry: entry))
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
                        looseTokens: vocabulary.add(loose), looseLength: loose.count, coreTokens: vocabulary.add(core),
                        coreLength: core.count, coreIsDirectOnly: Self.directOnlyKeys.contains(core), key: key,
                        entry: entry))
            }
        }
        var substringRanksByFirstToken: [Int: [Int]] = [:]
        for (rank, candidate) in substringKeys.enumerated() {
            if let first = candidate.tokens.first { substringRanksByFirstToken[first, default: []].append(rank) }
        }
        var parentsByFirstToken: [Int: [Int]] = [:]
        for (index, parent) in parents.enumerated() {
            for first in Set([parent.looseTokens.first, parent.coreTokens.first].compactMap { $0 }) {
                parentsByFirstToken[first, default: []].append(index)
            }
        }
        self.looseIndex = looseIndex
        self.vocabulary = vocabulary
        self.substringKeys = substringKeys
        self.substringRanksByFirstToken = substringRanksByFirstToken
        self.parents = parents
        self.parentsByFirstToken = parentsByFirstToken
    }

    /// Direct hit: the normalized text is a seed key (or loosely equal to one).
    public func direct(_ text: String) -> Match? {
        direct(prepared(text))
    }

    /// Longest seed key (≥ 4 characters, not direct-only) contained in the text as whole words.
    public func longestSubstring(_ text: String) -> Match? {
        longestSubstring(prepared(text))
    }

    /// Parent-company hit: the text equals or contains a listed parent's name (see the type's rules).
    public func parent(_ text: String) -> Match? {
        parentHit(prepared(text)).map { $0.match }
    }

    /// The cascade for one text: direct → substring → parent.
    public func match(_ text: String) -> Match? {
        let given = prepared(text)
        return direct(given) ?? longestSubstring(given) ?? parentHit(given)?.match
    }

    /// The cascade over several OCR candidates (e.g. each line of visible text). The candidates joined with
    /// spaces are tried as one more candidate, so a brand split over two lines still matches. Order of
    /// preference: a direct hit on the earliest candidate; else the longest substring key over all candidates
    /// (ties → earliest candidate); else the longest parent name (ties → earliest candidate).
    public func matchAny(_ candidates: [String]) -> Match? {
        var normalized = candidates.map(BrandSeed.normalize).filter { !$0.isEmpty }
        if normalized.count > 1 { normalized.append(normalized.joined(separator: " ")) }
        let texts = normalized.map(prepared)
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

    // MARK: - The steps on a prepared text

    private func prepared(_ text: String) -> Text {
        let normalized = BrandSeed.normalize(text)
        let loose = TextForms.loose(normalized)
        let tokens = TextForms.tokens(loose)
        return Text(
            normalized: normalized, loose: loose, tokens: vocabulary.numbers(of: tokens),
            core: Self.coreRange(tokens))
    }

    private func direct(_ text: Text) -> Match? {
        guard !text.normalized.isEmpty else { return nil }
        if let entry = seed.entries[text.normalized] {
            return Match(key: text.normalized, entry: entry, method: .direct)
        }
        if let key = looseIndex[text.loose], let entry = seed.entries[key] {
            return Match(key: key, entry: entry, method: .direct)
        }
        return nil
    }

    /// The best-ranked substring key that occurs at any token of the text: only keys starting with that token
    /// are tried, in rank order, and none ranked after the best found so far.
    private func longestSubstring(_ text: Text) -> Match? {
        var best: Int?
        for start in text.tokens.indices {
            guard let ranks = substringRanksByFirstToken[text.tokens[start]] else { continue }
            for rank in ranks {
                if let best, rank >= best { break }
                if TokenRuns.occurs(substringKeys[rank].tokens, in: text.tokens, at: start) {
                    best = rank
                    break
                }
            }
        }
        guard let best else { return nil }
        let hit = substringKeys[best]
        return Match(key: hit.key, entry: hit.entry, method: .substring)
    }

    /// The longest parent name the text equals or contains. Only parents whose full name or core starts with one
    /// of the text's tokens can match; they are tried in the parents' order (the first of equal lengths wins).
    private func parentHit(_ text: Text) -> (match: Match, length: Int)? {
        guard !text.tokens.isEmpty else { return nil }
        let textCore = Array(text.tokens[text.core])
        let textHasSuffix = text.core.count != text.tokens.count
        var candidates = Set<Int>()
        for token in Set(text.tokens) { candidates.formUnion(parentsByFirstToken[token] ?? []) }
        var best: (parent: ParentName, length: Int)?
        for index in candidates.sorted() {
            let parent = parents[index]
            var length = 0
            if text.tokens == parent.looseTokens
                || (parent.looseLength >= 4 && TokenRuns.occurs(parent.looseTokens, in: text.tokens))
            {
                length = parent.looseLength
            } else if !parent.coreTokens.isEmpty {
                if parent.coreTokens.count >= 2, !parent.coreIsDirectOnly,
                    TokenRuns.occurs(parent.coreTokens, in: text.tokens)
                {
                    length = parent.coreLength
                } else if textHasSuffix, textCore == parent.coreTokens, parent.coreLength >= 2 {
                    length = parent.coreLength
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

    /// A loose name without its corporate suffixes and leading "the" (`coreRange`).
    static func stripSuffixes(_ loose: String) -> String {
        let tokens = TextForms.tokens(loose)
        return tokens[coreRange(tokens)].joined(separator: " ")
    }

    /// The tokens left when a leading "the" and trailing corporate-form words are dropped (at least one stays).
    static func coreRange(_ tokens: [Substring]) -> Range<Int> {
        var start = 0
        var end = tokens.count
        if tokens.first == "the", tokens.count > 1 { start = 1 }
        while end - start > 1 {
            if corporateSuffixes.contains(tokens[end - 1]) {
                end -= 1
            } else if end - start > 2, tokens[end - 2] == "a", tokens[end - 1] == "s" {
                end -= 2  // "A/S"
            } else {
                break
            }
        }
        return start..<end
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
