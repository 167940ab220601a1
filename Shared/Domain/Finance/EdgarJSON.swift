import Foundation

/// SEC EDGAR's public JSON, decoded: the ticker → CIK map (`company_tickers.json`) and the columns of a company's
/// submissions (`filings.recent`). What a caller keeps of them is its own rule (Briefs' filing list, Research's 10-K).
public enum EdgarJSON {
    /// A listed company as the map names it.
    public struct Company: Sendable, Equatable {
        public let cik: Int
        public let name: String

        public init(cik: Int, name: String) {
            self.cik = cik
            self.name = name
        }
    }

    /// The CIK zero-padded to ten digits, as the submissions URL names it.
    public static func paddedCIK(_ cik: Int) -> String {
        String(repeating: "0", count: max(0, 10 - String(cik).count)) + String(cik)
    }

    private struct TickerRow: Decodable {
        let cik_str: Int?
        let ticker: String?
        let title: String?
    }

    /// `{"0": {"cik_str": 320193, "ticker": "AAPL", "title": "Apple Inc."}, …}` by upper-cased ticker; nil when the
    /// body is not that shape. Rows without a ticker or a CIK in 1 ..< 10¹⁰ are skipped.
    public static func companies(_ body: [UInt8]) -> [String: Company]? {
        guard let rows = try? JSONDecoder().decode([String: TickerRow].self, from: Data(body)) else { return nil }
        var map: [String: Company] = [:]
        for row in rows.values {
            guard let cik = row.cik_str, (1..<10_000_000_000).contains(cik), let ticker = row.ticker?.uppercased()
            else { continue }
            map[ticker] = Company(cik: cik, name: row.title ?? ticker)
        }
        return map
    }

    /// A submissions document's company name and its recent filings, one column per field, newest first as EDGAR
    /// lists them (a missing column is empty).
    public struct Submissions: Decodable, Sendable {
        public struct Filings: Decodable, Sendable { public let recent: Recent? }
        public struct Recent: Decodable, Sendable {
            public let accessionNumber: [String]?
            public let filingDate: [String]?
            public let form: [String]?
            public let primaryDocument: [String]?
            public let acceptanceDateTime: [String]?
        }
        public let name: String?
        public let filings: Filings?
    }

    /// The submissions document; nil when the body is not one.
    public static func submissions(_ body: [UInt8]) -> Submissions? {
        try? JSONDecoder().decode(Submissions.self, from: Data(body))
    }
}
