import Contracts
import Foundation
import HTTPClient
import ResearchCore
import Runtime

/// FRED's `series/observations` (`FRED_BASE_URL`, default `https://api.stlouisfed.org/fred`; `FRED_API_KEY`): the
/// latest usable observation of a series, newest first, 8 rows, 6 s. The key is a query parameter of FRED's API, so
/// request URLs are never logged; sources cite the series' public page instead.
struct FredClient: Sendable {
    static let defaultBaseURL = "https://api.stlouisfed.org/fred"
    let baseURL: String
    let apiKey: String?
    let http: HTTPClient
    let logger: Logger

    static func fromEnvironment(_ env: Environment, http: HTTPClient, logger: Logger) -> FredClient {
        var base = env.get("FRED_BASE_URL", default: defaultBaseURL)
        while base.hasSuffix("/") { base.removeLast() }
        let key = env.get("FRED_API_KEY").map { String($0.filter { !$0.isWhitespace }) }
        return FredClient(baseURL: base, apiKey: key?.isEmpty == true ? nil : key, http: http, logger: logger)
    }

    var isConfigured: Bool { apiKey != nil }

    /// The latest observation of `spec`, or nil (no key, failure, or no usable row).
    func latest(_ spec: EnvironmentRules.SeriesSpec) async -> EnvironmentSeries? {
        guard let apiKey, let id = spec.id.addingPercentEncoding(withAllowedCharacters: .alphanumerics),
            let key = apiKey.addingPercentEncoding(withAllowedCharacters: .alphanumerics)
        else { return nil }
        var request = HTTPClientRequest(
            method: "GET",
            url: "\(baseURL)/series/observations?series_id=\(id)&api_key=\(key)&file_type=json&sort_order=desc&limit=8",
            headers: [("Accept", "application/json")])
        request.timeout = .seconds(6)
        request.maxResponseBytes = 1 << 20
        struct Page: Decodable {
            struct Row: Decodable {
                var date: String
                var value: String
            }
            var observations: [Row]
        }
        do {
            let response = try await http.execute(request)
            guard response.status == 200 else {
                logger.warning(
                    "fred request failed", ["series": .string(spec.id), LogKeys.httpStatus: .int(response.status)])
                return nil
            }
            let page = try JSONDecoder().decode(Page.self, from: Data(response.body))
            guard let latest = EnvironmentRules.latest(page.observations.map { ($0.date, $0.value) }) else {
                return nil
            }
            return EnvironmentSeries(
                id: spec.id, label: spec.label, latest: latest.value, unit: spec.unit,
                asOf: String(latest.date.prefix(10)))
        } catch {
            logger.warning(
                "fred request failed", ["series": .string(spec.id), LogKeys.error: "\(error)"])
            return nil
        }
    }
}
