import Contracts
import Foundation
import HTTPClient
import Runtime

/// SEC EDGAR's public JSON: the ticker → CIK map (`<SEC_BASE_URL>/files/company_tickers.json`, kept 24 h) and a
/// company's submissions (`<SEC_DATA_BASE_URL>/submissions/CIK##########.json`, kept 1 h). EDGAR asks every
/// client for a `User-Agent` naming a contact (`SEC_USER_AGENT`).
struct SECFilings: Sendable {
    enum Failure: Error { case unknownTicker, unavailable }

    static let forms: Set<String> = ["10-K", "10-Q", "8-K", "20-F", "6-K", "40-F"]

    let baseURL: String
    let dataBaseURL: String
    let userAgent: String
    let http: HTTPClient
    private let tickers = TTLCache<String, [String: (cik: Int, name: String)]>(ttl: .seconds(86_400), capacity: 1)
    private let submissions = TTLCache<Int, SECFilingsResponse>(ttl: .seconds(3600), capacity: 2000)

    init(env: Environment, http: HTTPClient) {
        baseURL = env.get("SEC_BASE_URL", default: "https://www.sec.gov")
        dataBaseURL = env.get("SEC_DATA_BASE_URL", default: "https://data.sec.gov")
        userAgent = env.get("SEC_USER_AGENT", default: "Mapvest ops@mapvest.app")
        self.http = http
    }

    func filings(_ ticker: String, deadline: ContinuousClock.Instant) async throws(Failure) -> SECFilingsResponse {
        guard let company = try await map(deadline: deadline)[ticker] else { throw .unknownTicker }
        if let cached = submissions[company.cik] { return relabel(cached, ticker) }
        let padded = String(repeating: "0", count: max(0, 10 - String(company.cik).count)) + String(company.cik)
        let body = try await get("\(dataBaseURL)/submissions/CIK\(padded).json", deadline: deadline)
        struct Submissions: Decodable {
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
        guard let decoded = try? JSONDecoder().decode(Submissions.self, from: Data(body)) else { throw .unavailable }
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
            if filings.count == 10 { break }
        }
        let response = SECFilingsResponse(
            ticker: ticker, cik: padded, name: decoded.name ?? company.name, filings: filings)
        submissions.set(company.cik, response)
        return response
    }

    private func relabel(_ response: SECFilingsResponse, _ ticker: String) -> SECFilingsResponse {
        var copy = response
        copy.ticker = ticker
        return copy
    }

    /// `{"0": {"cik_str": 320193, "ticker": "AAPL", "title": "Apple Inc."}, …}` by upper-cased ticker.
    private func map(deadline: ContinuousClock.Instant) async throws(Failure) -> [String: (cik: Int, name: String)] {
        if let cached = tickers["all"] { return cached }
        struct Row: Decodable {
            let cik_str: Int?
            let ticker: String?
            let title: String?
        }
        let body = try await get("\(baseURL)/files/company_tickers.json", deadline: deadline)
        guard let rows = try? JSONDecoder().decode([String: Row].self, from: Data(body)) else { throw .unavailable }
        var map: [String: (cik: Int, name: String)] = [:]
        for row in rows.values {
            guard let cik = row.cik_str, (1..<10_000_000_000).contains(cik), let ticker = row.ticker?.uppercased()
            else { continue }
            map[ticker] = (cik, row.title ?? ticker)
        }
        tickers.set("all", map)
        return map
    }

    private func get(_ url: String, deadline: ContinuousClock.Instant) async throws(Failure) -> [UInt8] {
        let left = deadline - ContinuousClock.now
        guard left > .milliseconds(50) else { throw .unavailable }
        let request = HTTPClientRequest(
            url: url, headers: [("Accept", "application/json"), ("User-Agent", userAgent)],
            timeout: min(left, .seconds(8)),
            connectTimeout: .seconds(3))
        guard let response = try? await http.execute(request), (200..<300).contains(response.status) else {
            throw .unavailable
        }
        return response.body
    }
}
