import Contracts
import Foundation
import HTTPClient
import ResearchCore
import Runtime

/// The Underlying engine's packet builds (`UNDERLYING_URL`): `POST /api/prism` or `/api/situate` builds (or answers
/// from the engine's own per-day cache) a packet. One call, up to `UNDERLYING_BUILD_TIMEOUT_MS` (180 s); the answer's
/// status and bytes go to `PacketRules.verdict` (status 0 = no answer).
struct UnderlyingPackets: Sendable {
    /// Nil when `UNDERLYING_URL=off`.
    let baseURL: String?
    let timeout: Duration
    let http: HTTPClient

    static func fromEnvironment(_ env: Environment, http: HTTPClient) -> UnderlyingPackets {
        var url = env.get("UNDERLYING_URL", default: "https://underlying-terminal-production.up.railway.app")
        while url.hasSuffix("/") { url.removeLast() }
        return UnderlyingPackets(
            baseURL: url.lowercased() == "off" ? nil : url,
            timeout: env.milliseconds("UNDERLYING_BUILD_TIMEOUT_MS", default: .seconds(180)), http: http)
    }

    func build(_ command: PacketBuildCommand) async -> (status: Int, body: [UInt8]) {
        guard let baseURL, let body = try? JSONEncoder().encode(PacketRules.upstreamBody(command)) else {
            return (0, [])
        }
        var request = HTTPClientRequest(
            method: "POST", url: baseURL + "/api/\(command.kind.rawValue)",
            headers: [("Accept", "application/json"), ("Content-Type", "application/json")])
        request.body = Array(body)
        request.timeout = timeout
        request.maxResponseBytes = 16 << 20
        do {
            let response = try await http.execute(request)
            return (response.status, response.body)
        } catch {
            return (0, [])
        }
    }
}
