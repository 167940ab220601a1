import BriefsCore
import Contracts
import Finance
import Foundation
import HTTPClient
import Runtime

/// SEC EDGAR's public JSON over HTTP: the ticker → CIK map (`<SEC_BASE_URL>/files/company_tickers.json`, kept 24 h)
/// and a company's submissions (`<SEC_DATA_BASE_URL>/submissions/CIK##########.json`, kept 1 h), read by
/// `SECRules`. EDGAR asks every client for a `User-Agent` naming a contact (`SEC_USER_AGENT`).
struct SECFilings: Sendable {
    enum Failure: Error { case unknownTicker, unavailable }

    let baseURL: String
    let dataBaseURL: String
    let userAgent: String
    let http: HTTPClient
    private let tickers = TTLCache<String, [String: SECRules.Company]>(ttl: .seconds(86_400), capacity: 1)
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
        let body = try await get(
            "\(dataBaseURL)/submissions/CIK\(SECRules.paddedCIK(company.cik)).json", deadline: deadline)
        guard let response = SECRules.filings(body, ticker: ticker, company: company, baseURL: baseURL) else {
            throw .unavailable
        }
        submissions.set(company.cik, response)
        return response
    }

    private func relabel(_ response: SECFilingsResponse, _ ticker: String) -> SECFilingsResponse {
        var copy = response
        copy.ticker = ticker
        return copy
    }

    /// The ticker map, cached for a day.
    private func map(deadline: ContinuousClock.Instant) async throws(Failure) -> [String: SECRules.Company] {
        if let cached = tickers["all"] { return cached }
        let body = try await get("\(baseURL)/files/company_tickers.json", deadline: deadline)
        guard let map = SECRules.companies(body) else { throw .unavailable }
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
