/// Validation (docs/COMPATIBILITY.md#resolve-comparable) of ticker symbols that come from evidence text or a model
/// (comparables, ETF picks).
public enum TickerValidation {
    /// Upper-case words that look like tickers in headlines and snippets but are not picks: articles and
    /// pronouns, corporate and market jargon, agencies, currencies, places, and hospital abbreviations the
    /// original saw in evidence. Real seed tickers (`ALL`, `COST`, `LOW`, `AN`, `GO`, `SO`, `HAS`, `WWW`, `NOW`,
    /// `NET`…) are excluded on purpose so a genuine brand is never dropped.
    public static let denyList: Set<String> = [
        // contract examples
        "THE", "AND", "USA", "CEO", "ETF", "INC", "NY", "AI", "NYP", "MSHS", "MOUNT",
        // English words common in upper case
        "A", "I", "AM", "AT", "BE", "BY", "DO", "IF", "IN", "IS", "IT", "ME", "MY", "NO", "OF", "OK", "OR", "TO",
        "UP", "US", "WE", "ARE", "BUT", "CAN", "FOR", "HER", "HIS", "HOW", "ITS", "NEW", "NOT",
        "OUR", "OUT", "SEE", "TOP", "TWO", "WAS", "WHO", "WHY", "YOU", "ANY", "ONE", "BIG", "GET", "GOT", "LET",
        "MAY", "SAY", "SHE", "THEY", "THIS", "THAT", "WITH", "FROM", "WILL", "YOUR", "HAVE", "MORE", "ALSO",
        "OVER", "JUST", "BEST", "BUY", "SELL", "HOLD", "NEWS", "FREE", "SALE", "HOT", "NEAR", "LOVE", "CASH",
        "BANK", "WHAT", "WHEN", "THAN", "THEN", "INTO", "ONLY", "SOME", "MOST", "VERY", "HERE", "WHERE",
        // corporate forms and market jargon
        "LLC", "LTD", "PLC", "CORP", "CO", "NV", "AG", "SA", "LP", "LLP", "GMBH", "NYSE", "OTC", "ADR", "IPO",
        "EPS", "PE", "GDP", "CPI", "FED", "SEC", "FDA", "FTC", "DOJ", "IRS", "FBI", "CIA", "CFO", "COO", "CTO",
        "CMO", "CIO", "VP", "EVP", "SVP", "API", "APP", "FAQ", "PDF", "URL", "HTTP", "HTML", "COM",
        "ORG", "USD", "EUR", "GBP", "JPY", "CAD", "AUD", "CNY", "YOY", "QOQ", "YTD", "TTM", "EBIT", "GAAP",
        "ROI", "ROE", "ESG", "REIT", "NAV", "AUM", "ETN", "ETFS", "IRA", "FY", "Q", "EV", "EVS", "LLM", "GPT",
        "CEOS", "IPOS", "ADRS", "SPAC", "DJIA", "NASD", "PR", "HR", "TV", "CNBC", "WSJ", "FT", "AP",
        // places
        "UK", "EU", "UN", "LA", "SF", "DC", "NYC", "USSR", "UAE", "TX", "CA", "FL",
        // hospitals and health systems seen in evidence
        "NYU", "UCLA", "UCSF", "MSK", "HSS", "NYPH", "MGH",
    ]

    /// 1–5 upper-case ASCII letters and not in `denyList` (the input is taken as is: no trimming, no `$`).
    public static func isValidCandidate(_ symbol: String) -> Bool {
        let scalars = symbol.unicodeScalars
        guard (1...5).contains(scalars.count), scalars.allSatisfy({ ("A"..."Z").contains($0) }) else { return false }
        return !denyList.contains(symbol)
    }
}
