import Contracts
import Finance

/// The deterministic part of search intent (docs/COMPATIBILITY.md#search-intent), pure: text shapes and the eight rules
/// in order.
public enum IntentRules {
    /// Words that open a question (with at least three words in the query).
    static let questionStarts: [[String]] = [
        ["what"], ["what's"], ["whats"], ["why"], ["how"], ["when"], ["where"], ["which"], ["who"], ["should"], ["is"],
        ["are"], ["can"], ["could"], ["does"], ["do"], ["will"], ["would"], ["explain"], ["compare"], ["tell", "me"],
        ["give", "me"],
    ]
    /// Phrases that ask for places around the user.
    static let locatorPhrases: [[String]] = [
        ["near", "me"], ["nearby"], ["around", "here"], ["around", "me"], ["close", "to", "me"], ["closest"],
        ["nearest"], ["open", "now"], ["walking", "distance"],
    ]
    /// Words that name a kind of venue or a street-level place.
    static let venueWords: [[String]] = [
        ["restaurant"], ["restaurants"], ["cafe"], ["cafes"], ["café"], ["cafés"], ["diner"], ["diners"], ["store"],
        ["stores"], ["shop"], ["shops"], ["mall"], ["malls"], ["grocery"], ["groceries"], ["supermarket"],
        ["supermarkets"], ["pharmacy"], ["pharmacies"], ["gas", "station"], ["gas", "stations"], ["hotel"], ["hotels"],
        ["motel"], ["motels"], ["bakery"], ["bakeries"], ["gym"], ["gyms"], ["downtown"], ["main", "street"],
        ["street"], ["avenue"], ["ave"], ["blvd"], ["boulevard"], ["plaza"], ["square"], ["park"], ["airport"],
        ["station"], ["neighborhood"], ["district"],
    ]
    /// Prepositions that, with a device location and ≥ 2 words, make a place query.
    static let geoPrepositions: Set<String> = ["in", "near", "around", "on", "at", "by"]

    /// The query as the rules see it.
    public struct Query: Sendable, Equatable {
        /// Whitespace collapsed, trimmed, cut to 200 characters.
        public let text: String
        /// `text` without one leading `$`.
        public let bare: String
        let isCashtag: Bool
        let hasGeo: Bool
        /// Lower-cased words (letters, digits, apostrophes; curly apostrophes folded).
        public let words: [String]

        public init(_ q: String, lat: Double? = nil, lng: Double? = nil) {
            text = normalize(q)
            isCashtag = text.hasPrefix("$")
            bare = isCashtag ? String(text.dropFirst()) : text
            hasGeo = lat.map(\.isFinite) == true && lng.map(\.isFinite) == true
            words = Self.words(text)
        }

        /// `uppercase(bare)` matches `^[A-Z][A-Z0-9.]{0,5}$`.
        public var isTickerShaped: Bool { IntentRules.isTickerShaped(bare) }
        /// The symbol a ticker-shaped query names.
        public var symbol: String { bare.uppercased() }

        static func words(_ text: String) -> [String] {
            var out: [String] = []
            var current = ""
            for ch in text.lowercased() {
                let c: Character = ch == "\u{2019}" || ch == "\u{2018}" || ch == "\u{02BC}" ? "'" : ch
                if c.isLetter || c.isNumber || c == "'" {
                    current.append(c)
                } else if !current.isEmpty {
                    out.append(current)
                    current = ""
                }
            }
            if !current.isEmpty { out.append(current) }
            return out
        }

        /// Whether `phrase` occurs as consecutive whole words.
        func contains(_ phrase: [String]) -> Bool {
            guard !phrase.isEmpty, phrase.count <= words.count else { return false }
            for start in 0...(words.count - phrase.count) where Array(words[start..<start + phrase.count]) == phrase {
                return true
            }
            return false
        }
    }

    /// Whitespace runs → one space, trimmed, at most 200 characters.
    public static func normalize(_ q: String) -> String {
        String(q.split(whereSeparator: \.isWhitespace).joined(separator: " ").prefix(200))
    }

    /// Uppercased text matches `^[A-Z][A-Z0-9.]{0,5}$` (no `$` handling: pass `bare`).
    public static func isTickerShaped(_ text: String) -> Bool {
        let upper = text.uppercased().unicodeScalars
        guard (1...6).contains(upper.count), let first = upper.first, ("A"..."Z").contains(first) else { return false }
        return upper.dropFirst().allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "." }
    }

    /// Ends with `?`, or starts with a question word and has at least three words.
    public static func isQuestion(_ query: Query) -> Bool {
        if query.text.hasSuffix("?") { return true }
        guard query.words.count >= 3 else { return false }
        return questionStarts.contains { Array(query.words.prefix($0.count)) == $0 }
    }

    static func hasLocator(_ query: Query) -> Bool { locatorPhrases.contains(where: query.contains) }

    /// Venue words, or a device location with ≥ 2 words and a place preposition.
    static func looksLikePlace(_ query: Query) -> Bool {
        if venueWords.contains(where: query.contains) { return true }
        return query.hasGeo && query.words.count >= 2 && query.words.contains(where: geoPrepositions.contains)
    }

    /// Whether the live-quote probe runs: ticker-shaped, not a cashtag, not a question.
    public static func needsQuoteProbe(_ query: Query) -> Bool {
        query.isTickerShaped && !query.isCashtag && !isQuestion(query)
    }

    /// Rules 1–7; nil means rule 8 (ask Jev). `quoteHit` is the probe's result (nil when it did not run).
    public static func deterministic(_ query: Query, quoteHit: Bool?, matcher: BrandMatcher = .shared)
        -> SearchIntentResponse?
    {
        if query.isCashtag && query.isTickerShaped {
            return ticker(query.symbol, probability: 0.97, method: .deterministic)
        }
        if isQuestion(query) { return question(query, probability: 0.90, method: .deterministic) }
        if query.isTickerShaped && quoteHit == true {
            return ticker(query.symbol, probability: 0.95, method: .deterministic)
        }
        if let hit = matcher.direct(query.text) {
            return brand(query, symbol: hit.entry.ticker, probability: 0.95, method: .deterministic)
        }
        if hasLocator(query) { return place(query, probability: 0.90, method: .deterministic) }
        if let hit = matcher.longestSubstring(query.text) {
            return brand(query, symbol: hit.entry.ticker, probability: 0.80, method: .deterministic)
        }
        if looksLikePlace(query) { return place(query, probability: 0.85, method: .deterministic) }
        return nil
    }

    /// The fail-open answer: today's behaviour, the detail screen for the raw text.
    public static func fallback(_ query: Query) -> SearchIntentResponse {
        let symbol = query.isTickerShaped ? query.symbol : nil
        return SearchIntentResponse(
            intent: .ticker, probability: 0.5, resolved: SearchIntentResolved(symbol: symbol),
            route: SearchIntentRoute(screen: .detail, params: ["id": symbol ?? query.bare]), method: .fallback)
    }

    // MARK: - Result builders

    public static func ticker(_ symbol: String, probability: Double, method: SearchIntentMethod) -> SearchIntentResponse
    {
        SearchIntentResponse(
            intent: .ticker, probability: round3(probability), resolved: SearchIntentResolved(symbol: symbol),
            route: SearchIntentRoute(screen: .detail, params: ["id": symbol]), method: method)
    }

    public static func brand(_ query: Query, symbol: String?, probability: Double, method: SearchIntentMethod)
        -> SearchIntentResponse
    {
        SearchIntentResponse(
            intent: .brand, probability: round3(probability),
            resolved: SearchIntentResolved(symbol: symbol, brand: query.text),
            route: SearchIntentRoute(screen: .detail, params: ["id": symbol ?? query.text]), method: method)
    }

    public static func place(_ query: Query, probability: Double, method: SearchIntentMethod) -> SearchIntentResponse {
        SearchIntentResponse(
            intent: .place, probability: round3(probability), resolved: SearchIntentResolved(placeQuery: query.text),
            route: SearchIntentRoute(screen: .map, params: ["q": query.text]), method: method)
    }

    public static func question(_ query: Query, probability: Double, method: SearchIntentMethod) -> SearchIntentResponse
    {
        SearchIntentResponse(
            intent: .question, probability: round3(probability), resolved: SearchIntentResolved(),
            route: SearchIntentRoute(screen: .research, params: ["q": query.text]), method: method)
    }
}

func round3(_ v: Double) -> Double {
    guard v.isFinite else { return 0 }
    return (min(1, max(0, v)) * 1000).rounded() / 1000
}
