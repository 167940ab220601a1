import Finance
import Foundation
import HTTPClient
import ResearchCore
import Runtime

/// SEC EDGAR's public JSON for the graph's 10-K check: the ticker → CIK map (`<SEC_BASE_URL>/files/
/// company_tickers.json`, read once per sweep) and a company's submissions (`<SEC_DATA_BASE_URL>/submissions/
/// CIK##########.json`). Each call 8 s at most, with the `User-Agent` EDGAR asks for (`SEC_USER_AGENT`).
struct EdgarTenK: Sendable {
    let baseURL: String
    let dataBaseURL: String
    let userAgent: String
    let http: HTTPClient

    static func fromEnvironment(_ env: Environment, http: HTTPClient) -> EdgarTenK {
        EdgarTenK(
            baseURL: env.get("SEC_BASE_URL", default: "https://www.sec.gov"),
            dataBaseURL: env.get("SEC_DATA_BASE_URL", default: "https://data.sec.gov"),
            userAgent: env.get("SEC_USER_AGENT", default: "Mapvest ops@mapvest.app"), http: http)
    }

    /// Upper-cased ticker → CIK; nil when EDGAR does not answer it.
    func ciks() async -> [String: Int]? {
        await get(baseURL + "/files/company_tickers.json").flatMap(TenKRefresh.ciks)
    }

    /// The company's newest 10-K; nil when it has none or EDGAR does not answer.
    func latest(cik: Int) async -> TenKRefresh.Filing? {
        await get("\(dataBaseURL)/submissions/CIK\(EdgarJSON.paddedCIK(cik)).json").flatMap(TenKRefresh.latest)
    }

    private func get(_ url: String) async -> [UInt8]? {
        var request = HTTPClientRequest(
            url: url, headers: [("Accept", "application/json"), ("User-Agent", userAgent)], timeout: .seconds(8),
            connectTimeout: .seconds(3))
        request.maxResponseBytes = 32 << 20
        guard let response = try? await http.execute(request), (200..<300).contains(response.status) else {
            return nil
        }
        return response.body
    }
}
