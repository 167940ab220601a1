import Contracts
import Foundation
import HTTPClient
import Messaging
import ResearchCore

/// `research.cockpit.rank.v1`: one `POST <UNDERLYING_URL>/api/watchlists/cockpit {tickers}` (60 s at most, within
/// the command's deadline), read by `CockpitRules`. Unset (`UNDERLYING_URL=off`) → 503 naming it; a non-2xx answer
/// → 502 `underlying cockpit <status>` with the first 300 characters of its body; no answer or no JSON → 502.
struct CockpitRanker: Sendable {
    /// Underlying's origin (nil when `UNDERLYING_URL=off`).
    let baseURL: String?
    let http: HTTPClient

    static let notConfigured = "cockpit needs UNDERLYING_URL (the Underlying service) and it is off"

    func rank(_ command: CockpitCommand, deadline: ContinuousClock.Instant) async -> Reply {
        guard let baseURL else { return .error(503, Self.notConfigured) }
        let left = deadline - ContinuousClock.now - .milliseconds(250)
        guard left > .milliseconds(100), let body = try? JSONEncoder().encode(["tickers": command.tickers]) else {
            return .error(502, "underlying cockpit unreachable")
        }
        var request = HTTPClientRequest(
            method: "POST", url: baseURL + "/api/watchlists/cockpit",
            headers: [("Accept", "application/json"), ("Content-Type", "application/json")])
        request.body = Array(body)
        request.timeout = min(left, .seconds(60))
        request.maxResponseBytes = 4 << 20
        guard let response = try? await http.execute(request) else {
            return .error(502, "underlying cockpit unreachable")
        }
        guard (200..<300).contains(response.status) else {
            let detail = String(String(decoding: response.body.prefix(2048), as: UTF8.self).prefix(300))
            return .json(502, ["error": "underlying cockpit \(response.status)", "detail": detail])
        }
        guard let answer = try? JSONDecoder().decode(JSONValue.self, from: Data(response.body)) else {
            return .error(502, "underlying cockpit answered no JSON")
        }
        return .json(200, CockpitRules.response(answer, tickers: command.tickers, origin: baseURL))
    }
}
