import Contracts
import Foundation

/// SEC EDGAR's public JSON, read: the ticker → CIK map (`company_tickers.json`) and a company's recent filings from
/// its submissions (the annual, quarterly and current-report forms, at most ten, each with its archive URL).
public enum SECRules {
    public static let forms: Set<String> = ["10-K", "10-Q", "8-K", "20-F", "6-K", "40-F"]
    public static let maxFilings = 10

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

    private struct Submissions: Decodable {
        struct Filings: Decodable { let recent: Recent? }
        struct Recent: Decodable {
            let accessionNumber: [String]?
            let filingDate: [String]?
            let form: [String]?
            let primaryDocument: [String]?
        }
        let name: String?
        let filings: Filings?
    }

    /// The company's recent filings of the kept forms, newest first as EDGAR lists them, at most ten; nil when the
    /// body is not a submissions document. A filing without an accession folder or a plain document name is skipped.
    public static func filings(_ body: [UInt8], ticker: String, company: Company, baseURL: String)
        -> SECFilingsResponse?
    {
        guard let decoded = try? JSONDecoder().decode(Submissions.self, from: Data(body)) else { return nil }
        let recent = decoded.filings?.recent
        let (numbers, dates, forms, documents) = (
            recent?.accessionNumber ?? [], recent?.filingDate ?? [], recent?.form ?? [], recent?.primaryDocument ?? []
        )
        var filings: [SECFiling] = []
        for i in 0..<min(numbers.count, dates.count, forms.count, documents.count) where Self.forms.contains(forms[i]) {
            let folder = numbers[i].filter(\.isNumber)
            guard !folder.isEmpty, !documents[i].isEmpty, !documents[i].contains("/") else { continue }
            filings.append(
                SECFiling(
                    form: forms[i], filedAt: dates[i], accessionNumber: numbers[i],
                    url: "\(baseURL)/Archives/edgar/data/\(company.cik)/\(folder)/\(documents[i])"))
            if filings.count == maxFilings { break }
        }
        return SECFilingsResponse(
            ticker: ticker, cik: paddedCIK(company.cik), name: decoded.name ?? company.name, filings: filings)
    }
}
