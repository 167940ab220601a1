import Contracts
import Finance
import Foundation
import HTTPServer
import MCP
import Runtime

/// Mapvest's four MCP tools, in `tools/list` order (docs/COMPATIBILITY.md#mcp-tools). They reach the services by the
/// very commands the REST routes send (`search.intent.v1`, `rating.get.v1`) through `ServiceCaller`, never HTTP to
/// ourselves; `brand_lookup` reads the curated seed in this process. Every result that names a ticker or a brand says
/// what it rests on (`sources`) and is `confidence: low` when it cannot cite one.
struct MapvestTools: Sendable {
    /// The quick tools' budget: past it the caller gets an error result while a rating keeps computing into its cache.
    static let deadline: Duration = .seconds(7)
    /// Fresh (uncached) ratings per UTC day for MCP callers, per process.
    static let ratingDailyCap = 200
    static let withheld = "withheld: restates licensed market data, which is not redistributed here"
    static let licensedEvidence: Set<String> = ["quote", "ratios"]

    let caller: ServiceCaller
    /// The REST rating budget: the command keeps it, so a computation cut off at `deadline` still completes.
    let ratingBudget: Duration
    let ratingCache: RatingCachePeek
    let freshRatings: DailyAllowance
    let matcher: BrandMatcher

    init(caller: ServiceCaller, ratingBudget: Duration, ratingCache: RatingCachePeek, matcher: BrandMatcher = .shared) {
        self.caller = caller
        self.ratingBudget = ratingBudget
        self.ratingCache = ratingCache
        self.freshRatings = DailyAllowance(cap: Self.ratingDailyCap)
        self.matcher = matcher
    }

    var tools: [MCPTool] { [searchIntent, rating, brandLookup, askLattice] }

    // MARK: search_intent

    var searchIntent: MCPTool {
        MCPTool(
            name: "search_intent",
            description:
                "Classify what someone typed into Mapvest's search box (a ticker, a brand, a place or a question) and "
                + "the ticker or brand it resolves to. Rules and the curated brand seed decide most queries; a small "
                + "classifier handles the rest. Cites its sources; without one, confidence is low.",
            inputSchema: Self.schema(
                "query",
                description: "What the person typed, 1 to 200 characters: a name, a ticker, a place, a question.",
                maxLength: 200)
        ) { arguments, _ in
            var args = ToolArguments("search_intent", arguments, allowed: ["query"])
            let query = args.string("query", 1...200)
            if let refusal = args.refusal { return refusal }
            let text = Self.fold(query ?? "")
            let reply = await caller.call(
                .rating, SearchIntentCommand.name, key: text.lowercased(),
                command: SearchIntentCommand(q: text, lat: nil, lng: nil), budget: Self.deadline,
                requestId: RequestIds.next())
            guard reply.status == 200,
                let decided = try? JSONDecoder().decode(SearchIntentResponse.self, from: Data(reply.body))
            else {
                return reply.status == 504
                    ? .error(
                        "search_intent did not finish within \(Self.deadline.components.seconds) s; try again shortly")
                    : .error("search_intent is unavailable right now; try again shortly")
            }
            let sources = cite(decided, text: text.hasPrefix("$") ? String(text.dropFirst()) : text)
            var result: [String: MCPValue] = [
                "query": .string(text), "intent": .string(decided.intent.rawValue),
                "probability": .double(decided.probability), "method": .string(decided.method.rawValue),
                "resolved": MCPValue.from(decided.resolved) ?? [:], "sources": MCPValue.from(sources) ?? [],
                "confidence": .string(Self.confidence(decided, sources).rawValue),
            ]
            if let note = Self.note(decided, sources) { result["note"] = .string(note) }
            return .text(MCPValue.object(result).jsonText)
        }
    }

    /// A brand's ticker cites the seed when the seed still maps the text to it. A typed ticker cites nothing here:
    /// the search command's answer does not say which quote provider confirmed the listing.
    func cite(_ decided: SearchIntentResponse, text: String) -> [Source] {
        guard decided.intent == .brand, let symbol = decided.resolved.symbol,
            let hit = matcher.direct(text) ?? matcher.longestSubstring(text), hit.entry.ticker == symbol
        else { return [] }
        return [Self.seedSource(hit.key == BrandSeed.normalize(text) ? .high : .medium)]
    }

    static func confidence(_ r: SearchIntentResponse, _ sources: [Source]) -> Confidence {
        if r.method == .fallback { return .low }
        if (r.intent == .ticker || r.intent == .brand) && sources.isEmpty { return .low }
        return r.probability >= 0.9 ? .high : r.probability >= 0.7 ? .medium : .low
    }

    static func note(_ r: SearchIntentResponse, _ sources: [Source]) -> String? {
        if r.method == .fallback {
            return "No rule matched and the classifier was unavailable or unsure, so this is Mapvest's default reading "
                + "of the text as a ticker or brand to open, not a finding."
        }
        if r.intent == .brand && r.resolved.symbol == nil {
            return "A brand that is not in the curated seed. That does not make it private or unlisted; there is just "
                + "no ticker to give."
        }
        if (r.intent == .ticker || r.intent == .brand) && sources.isEmpty {
            return "Nothing is cited for this reading: no seed entry or listing check is on record here, so it rests "
                + "on the shape of the text alone."
        }
        return nil
    }

    // MARK: rating

    var rating: MCPTool {
        MCPTool(
            name: "rating",
            description:
                "Mapvest's research-signal rating for one listed ticker, strong_sell to strong_buy, with probabilities, "
                + "drivers and evidence. AI-generated research signal, not investment advice. insufficient_signal "
                + "means no rating, not a hold. Cached for an hour; a fresh one takes seconds.",
            inputSchema: Self.schema(
                "ticker", description: "A listed ticker such as \"MCD\" or \"BRK.B\"; a leading $ is fine.",
                maxLength: 8)
        ) { arguments, _ in
            var args = ToolArguments("rating", arguments, allowed: ["ticker"])
            let raw = args.string("ticker", 1...8)
            if let refusal = args.refusal { return refusal }
            let unprefixed = (raw ?? "").hasPrefix("$") ? String((raw ?? "").dropFirst()) : raw ?? ""
            guard let ticker = ResearchInput.ratingTicker(unprefixed) else {
                return .error("invalid ticker: give a listed symbol such as \"MCD\" or \"BRK.B\"")
            }
            if !(await ratingCache.isCached(ticker)), !freshRatings.take() {
                return .error(
                    "rating budget for today is used (\(Self.ratingDailyCap) fresh ratings a day); a rating computed "
                        + "in the last hour is still served, and the budget resets at 00:00 UTC")
            }
            let (caller, budget) = (self.caller, ratingBudget)
            let reply = await withTimeLimit(Self.deadline) {
                await caller.call(
                    .rating, RatingCommand.name, key: ticker, command: RatingCommand(ticker: ticker), budget: budget,
                    requestId: RequestIds.next())
            }
            guard let reply else {
                return .error(
                    "rating for \(ticker) did not finish within \(Self.deadline.components.seconds) s; it keeps "
                        + "computing and is cached once done, so try again shortly")
            }
            guard reply.status == 200,
                let built = try? JSONDecoder().decode(RatingResponse.self, from: Data(reply.body))
            else { return .error("rating is unavailable right now; try again shortly") }
            return .text(Self.ratingResult(built).jsonText)
        }
    }

    /// The rating as the REST route returns it, with the quote and ratios summaries withheld, other summaries clipped
    /// to 200 characters, and a note for no rating or withheld evidence.
    static func ratingResult(_ rating: RatingResponse) -> MCPValue {
        var body = rating
        var withheldAny = false
        body.evidence = rating.evidence.map { item in
            if licensedEvidence.contains(item.source) {
                withheldAny = true
                return RatingEvidence(source: item.source, summary: withheld)
            }
            var clipped = item
            if clipped.summary.count > 200 { clipped.summary = String(clipped.summary.prefix(199)) + "…" }
            return clipped
        }
        var notes: [String] = []
        if rating.status == .insufficientSignal {
            notes.append(
                "No rating was produced: fewer than two evidence sources resolved, the scoring service was "
                    + "unavailable, or its confidence was under 0.55. That is not a hold, and not a signal either way.")
        }
        if withheldAny {
            notes.append(
                "Quote and ratios evidence is listed by name only: those figures are licensed market data and are "
                    + "not redistributed here.")
        }
        guard var object = MCPValue.from(body)?.object else { return .object([:]) }
        if !notes.isEmpty { object["note"] = .string(notes.joined(separator: " ")) }
        return .object(object)
    }

    // MARK: brand_lookup

    var brandLookup: MCPTool {
        MCPTool(
            name: "brand_lookup",
            description:
                "Look a brand up in Mapvest's curated seed of public brands: ticker, exchange, parent and sector. No "
                + "network, instant. found false only means the seed lacks the brand, not that it is private. A seed "
                + "name found inside longer text is marked contained, with medium confidence.",
            inputSchema: Self.schema(
                "brand", description: "A brand or product name, 1 to 200 characters, such as \"McDonald's\".",
                maxLength: 200)
        ) { arguments, _ in
            var args = ToolArguments("brand_lookup", arguments, allowed: ["brand"])
            let brand = args.string("brand", 1...200)
            if let refusal = args.refusal { return refusal }
            return .text(lookup(Self.fold(brand ?? "")).jsonText)
        }
    }

    /// The seed's answer for `text`: a direct key, else the longest contained key of 4+ characters.
    func lookup(_ text: String) -> MCPValue {
        guard let hit = matcher.direct(text) ?? matcher.longestSubstring(text) else {
            return [
                "query": .string(text), "found": false, "match": .null, "sources": [], "confidence": "low",
                "note": .string(
                    "Not in the curated brand seed. That does not mean the brand is private or unlisted; the seed "
                        + "is a starting table, not a census."),
            ]
        }
        let exact = hit.key == BrandSeed.normalize(text)
        let confidence: Confidence = exact ? .high : .medium
        var match: [String: MCPValue] = [
            "kind": exact ? "exact" : "contained", "key": .string(hit.key), "ticker": .string(hit.entry.ticker),
            "exchange": .string(hit.entry.exchange), "parent": .string(hit.entry.parent),
        ]
        if !hit.entry.sector.isEmpty { match["sector"] = .string(hit.entry.sector) }
        var result: [String: MCPValue] = [
            "query": .string(text), "found": true, "match": .object(match),
            "sources": MCPValue.from([Self.seedSource(confidence)]) ?? [], "confidence": .string(confidence.rawValue),
        ]
        if !exact {
            result["note"] = .string("A seed brand name appears inside your text; check it is the brand you meant.")
        }
        return .object(result)
    }

    // MARK: ask_lattice_animals

    var askLattice: MCPTool {
        MCPTool(
            name: "ask_lattice_animals",
            description:
                "Ask the lattice animals, the constellation's hub (a field of small minds that agree into "
                + "polyominoes), one question. They answer in their own voice and may look things up. One model call "
                + "on their side, so it is slow.",
            inputSchema: [
                "type": "object",
                "properties": [
                    "question": [
                        "type": "string", "minLength": 1, "maxLength": 600, "description": "1 to 600 characters",
                    ],
                    "to": [
                        "type": "string", "enum": ["field", "app", "connectome"],
                        "description": "who answers (default: the field)",
                    ],
                ],
                "required": ["question"], "additionalProperties": false,
            ],
            relay: true
        ) { arguments, context in
            var args = ToolArguments("ask_lattice_animals", arguments, allowed: ["question", "to"])
            let question = args.string("question", 1...600)
            let to = args.choice("to", ["field", "app", "connectome"])
            if let refusal = args.refusal { return refusal }
            var forwarded: [String: MCPValue] = ["question": .string(question ?? "")]
            if let to { forwarded["to"] = .string(to) }
            return await context.call(peer: "lattice", tool: "ask_the_minds", arguments: forwarded)
                .output(who: "the lattice animals")
        }
    }

    // MARK: helpers

    /// `{type: object, properties: {<key>: string 1…max}, required: [key], additionalProperties: false}`.
    static func schema(_ key: String, description: String, maxLength: Int64) -> MCPValue {
        [
            "type": "object",
            "properties": [
                key: [
                    "type": "string", "minLength": 1, "maxLength": .int(maxLength), "description": .string(description),
                ]
            ],
            "required": [.string(key)], "additionalProperties": false,
        ]
    }

    /// Whitespace runs folded to one space, trimmed, at most 200 characters (the REST search normalisation).
    static func fold(_ text: String) -> String {
        String(text.split(whereSeparator: \.isWhitespace).joined(separator: " ").prefix(200))
    }

    static func seedSource(_ confidence: Confidence) -> Source {
        Source(provider: .manual, fetchedAt: Timestamp.iso8601(Date()), confidence: confidence)
    }
}
