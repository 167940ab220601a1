import Finance

/// Tickers that evidence text cites explicitly: `$XYZ`, `NYSE: XYZ`, `(NASDAQ: XYZ)`, `ticker XYZ`,
/// `symbol XYZ`, `traded as XYZ`. Only what passes `TickerValidation` is returned, in order of appearance.
enum TickerCitations {
    nonisolated(unsafe) private static let patterns: [Regex<(Substring, Substring)>] = [
        #/\$([A-Z]{1,5})\b/#,
        #/\b(?:NYSE|NASDAQ|Nasdaq|NYSE American|AMEX|OTC)\s*:\s*([A-Z]{1,5})\b/#,
        #/\b(?:ticker|symbol|traded as)(?:\s+symbol)?\s*:?\s+\(?\$?([A-Z]{1,5})\b/#,
    ]

    static func extract(_ text: String) -> [String] {
        var found: [(offset: Int, symbol: String)] = []
        for pattern in patterns {
            for match in text.matches(of: pattern) {
                let symbol = String(match.output.1)
                guard TickerValidation.isValidCandidate(symbol) else { continue }
                found.append((text.distance(from: text.startIndex, to: match.range.lowerBound), symbol))
            }
        }
        var seen = Set<String>()
        return found.sorted { $0.offset < $1.offset }.map(\.symbol).filter { seen.insert($0).inserted }
    }

    /// Whether `symbol` is cited explicitly in `text`.
    public static func cites(_ text: String, _ symbol: String) -> Bool { extract(text).contains(symbol) }
}
