import Finance
import Foundation

/// A stored value chain is refreshed when a new 10-K lands (decision 0051): the graph's own freshness
/// (`ValueChain.isFresh`) no longer holds once EDGAR shows an annual report accepted after the graph was made.
/// EDGAR's public JSON is read here: the ticker map (`company_tickers.json`) and a company's submissions.
public enum TenKRefresh {
    /// The newest annual report EDGAR lists for a company.
    public struct Filing: Sendable, Equatable {
        public var accession: String
        /// When EDGAR accepted it (`acceptanceDateTime`, else the filing day at 00:00 UTC).
        public var acceptedAt: Date

        public init(accession: String, acceptedAt: Date) {
            self.accession = accession
            self.acceptedAt = acceptedAt
        }
    }

    /// Fresh when `ValueChain.isFresh` holds and no 10-K was accepted after the graph's newest edge
    /// (`tenKAgeSeconds`: the stored 10-K's age, nil when none is known).
    public static func isFresh(count: Int, ageSeconds: Double, tenKAgeSeconds: Double?) -> Bool {
        guard ValueChain.isFresh(count: count, ageSeconds: ageSeconds) else { return false }
        guard let tenKAgeSeconds else { return true }
        return tenKAgeSeconds >= ageSeconds
    }

    /// `company_tickers.json` as upper-cased ticker → CIK; nil when it is not that document.
    public static func ciks(_ body: [UInt8]) -> [String: Int]? {
        EdgarJSON.companies(body)?.mapValues(\.cik)
    }

    /// The newest `10-K` in a submissions document's `filings.recent` columns (amendments are not a new report);
    /// nil when there is none or the document is not one.
    public static func latest(_ body: [UInt8]) -> Filing? {
        guard let recent = EdgarJSON.submissions(body)?.filings?.recent,
            let forms = recent.form, let accessions = recent.accessionNumber
        else { return nil }
        var newest: Filing?
        for (index, form) in forms.enumerated() where form == "10-K" && index < accessions.count {
            let accepted = recent.acceptanceDateTime.flatMap { index < $0.count ? date($0[index]) : nil }
            let filed = recent.filingDate.flatMap { index < $0.count ? date($0[index] + "T00:00:00Z") : nil }
            guard let at = accepted ?? filed else { continue }
            if newest.map({ at > $0.acceptedAt }) ?? true {
                newest = Filing(accession: accessions[index], acceptedAt: at)
            }
        }
        return newest
    }

    /// ISO 8601 with or without fractional seconds.
    static func date(_ text: String) -> Date? {
        let plain = ISO8601DateFormatter()
        if let date = plain.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }
}
