import Contracts
import Finance

/// SEC EDGAR's public JSON, read: the ticker → CIK map (`company_tickers.json`) and a company's recent filings from
/// its submissions (the annual, quarterly and current-report forms, at most ten, each with its archive URL).
public enum SECRules {
    public static let forms: Set<String> = ["10-K", "10-Q", "8-K", "20-F", "6-K", "40-F"]
    public static let maxFilings = 10

    /// A listed company as the map names it.
    public typealias Company = EdgarJSON.Company

    /// The CIK zero-padded to ten digits, as the submissions URL names it.
    public static func paddedCIK(_ cik: Int) -> String { EdgarJSON.paddedCIK(cik) }

    /// The map by upper-cased ticker (`EdgarJSON.companies`).
    public static func companies(_ body: [UInt8]) -> [String: Company]? { EdgarJSON.companies(body) }

    /// The company's recent filings of the kept forms, newest first as EDGAR lists them, at most ten; nil when the
    /// body is not a submissions document. A filing without an accession folder or a plain document name is skipped.
    public static func filings(_ body: [UInt8], ticker: String, company: Company, baseURL: String)
        -> SECFilingsResponse?
    {
        guard let decoded = EdgarJSON.submissions(body) else { return nil }
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
