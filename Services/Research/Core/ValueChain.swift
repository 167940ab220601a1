import Contracts

/// The value-chain rules (no I/O): which tickers are asked about, when a stored graph is fresh, what the judge model
/// is asked, and which of its edges survive — each tied to a piece of supplied evidence.
public enum ValueChain {
    /// One piece of evidence the model may cite: a filing from Underlying's SEC citations, or an Exa hit.
    public struct Evidence: Sendable, Equatable {
        public var url: String
        public var label: String
        public var snippet: String?
        public var isFiling: Bool

        public init(url: String, label: String, snippet: String? = nil, isFiling: Bool) {
            self.url = url
            self.label = label
            self.snippet = snippet
            self.isFiling = isFiling
        }
    }

    public static let relations: Set<String> = ["supplies", "buys_from", "competes_with", "complements"]
    public static let models = ["openai/gpt-5.6-terra", "anthropic/claude-opus-4.8", "x-ai/grok-4.6"]
    /// Placeholders a model writes where no listed ticker exists.
    static let notTickers: Set<String> = ["N", "NA", "NONE", "NULL", "TBD", "PRIV", "OTC", "ETF", "INC", "LLC", "LTD"]

    /// Trimmed, upper-cased, `^[A-Z][A-Z0-9.]{0,5}$`.
    public static func ticker(_ raw: String) -> String? {
        let t = String(
            raw.unicodeScalars.drop(while: \.properties.isWhitespace).reversed()
                .drop(while: \.properties.isWhitespace).reversed().map(Character.init)
        ).uppercased()
        let bytes = Array(t.utf8)
        guard (1...6).contains(bytes.count), (65...90).contains(bytes[0]),
            bytes.dropFirst().allSatisfy({ (65...90).contains($0) || (48...57).contains($0) || $0 == 46 })
        else { return nil }
        return t
    }

    /// The four Exa questions: suppliers, customers, competitors, complements.
    public static func queries(_ ticker: String) -> [String] {
        [
            "\(ticker) key suppliers single source components 10-K",
            "\(ticker) largest customers revenue concentration 10-K",
            "\(ticker) main competitors rivalry market share",
            "\(ticker) ecosystem partners complementary products integrations",
        ]
    }

    /// Four or more stored edges are fresh for 30 days, fewer for 24 hours (judged on the newest edge).
    public static func isFresh(count: Int, ageSeconds: Double) -> Bool {
        guard count > 0 else { return false }
        return ageSeconds < (count >= 4 ? 30 * 86_400 : 86_400)
    }

    public static let system = """
        You map a listed company's value chain from the evidence given, and nothing else. Answer JSON only: \
        {"edges":[{"counterparty":"…","ticker":"…","relation":"supplies|buys_from|competes_with|complements",\
        "weight":0.0,"reasoning":"…","sourceUrl":"…"}]}. At most 12 edges. The relation points from the counterparty \
        toward the subject: supplies = the counterparty sells to the subject; buys_from = the counterparty is a \
        customer. Every edge cites one of the supplied URLs as sourceUrl. Give a ticker only for a real listed \
        company; otherwise leave it out. Weight is how much the relation matters to the subject, 0 to 1.
        """

    public static func prompt(_ ticker: String, evidence: [Evidence]) -> String {
        let lines = evidence.enumerated().map { index, item in
            "[\(index + 1)] \(item.label) — \(item.url)" + (item.snippet.map { "\n    \($0)" } ?? "")
        }
        return "Subject: \(ticker)\nEvidence:\n" + lines.joined(separator: "\n")
    }

    /// A URL compared loosely: no scheme, no `www.`, no query or fragment, no trailing slash, lower-cased.
    public static func looseURL(_ url: String) -> String {
        var s = Substring(url.lowercased())
        for scheme in ["https://", "http://"] where s.hasPrefix(scheme) { s = s.dropFirst(scheme.count) }
        if s.hasPrefix("www.") { s = s.dropFirst(4) }
        if let cut = s.firstIndex(where: { $0 == "?" || $0 == "#" }) { s = s[..<cut] }
        while s.hasSuffix("/") { s = s.dropLast() }
        return String(s)
    }

    /// The model's edges that survive: a known relation, a cited URL that matches the evidence, a plausible ticker
    /// other than the subject's (else none), one per relation and counterparty, at most 12, weights clamped.
    public static func edges(
        _ answer: [String: JSONValue], subject: String, evidence: [Evidence], createdAt: String, asOf: String?,
        id: (Int) -> String
    ) -> [CompanyEdge] {
        guard case .array(let raw)? = answer["edges"] else { return [] }
        var byURL: [String: Evidence] = [:]
        for item in evidence where byURL[looseURL(item.url)] == nil { byURL[looseURL(item.url)] = item }
        var seen: Set<String> = []
        var out: [CompanyEdge] = []
        for case .object(let e) in raw where out.count < 12 {
            guard case .string(let relation)? = e["relation"], relations.contains(relation),
                let name = text(e["counterparty"]), let cited = text(e["sourceUrl"]),
                let item = byURL[looseURL(cited)]
            else { continue }
            var dst = text(e["ticker"]).flatMap(ticker)
            if let t = dst, t == subject || notTickers.contains(t) || t.count > 5 || t.contains(".") { dst = nil }
            guard seen.insert("\(relation):\(dst ?? name.lowercased())").inserted else { continue }
            var weight = 0.5
            if case .number(let w)? = e["weight"], w.isFinite { weight = min(1, max(0, w)) }
            let source = Source(
                provider: item.isFiling ? .sec : .exa, url: item.url, fetchedAt: createdAt,
                confidence: item.isFiling ? .high : .medium)
            out.append(
                CompanyEdge(
                    id: id(out.count), srcTicker: subject, dstTicker: dst, dstName: String(name.prefix(200)),
                    edgeType: relation, weight: weight,
                    reasoning: text(e["reasoning"]).map { String($0.prefix(600)) } ?? "Cited via \(item.url)",
                    sources: [source], asOf: asOf, createdAt: createdAt))
        }
        return out
    }

    static func text(_ value: JSONValue?) -> String? {
        guard case .string(let s)? = value else { return nil }
        let t = s.split(whereSeparator: \.isNewline).joined(separator: " ")
            .drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()
        return t.isEmpty ? nil : String(t)
    }
}
