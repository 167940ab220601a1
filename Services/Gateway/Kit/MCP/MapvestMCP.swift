import Foundation
import MCP
import Runtime

/// Mapvest's configuration of the MCP library (docs/COMPATIBILITY.md#mcp): server `mapvest`, its four tools, the one
/// peer `lattice`, and the manifest's origin — all the operator's, from the environment, never from a request.
struct MapvestMCP: Sendable {
    static let name = "mapvest"
    /// Bump when a tool's name, arguments or result shape changes.
    static let version = "0.1.0"
    static let defaultOrigin = "https://api-production-4b27.up.railway.app"
    static let defaultLatticeURL = "https://latticeanimal-production.up.railway.app/mcp"

    /// `MCP_PUBLIC_ORIGIN`: the origin the manifest advertises, reduced to scheme, host and port.
    let origin: String
    /// `LATTICE_MCP_URL` (the hub's public address): https only; an unusable value is listed as not configured.
    let latticeURL: String
    /// `MCP_ALLOW_LOCAL=1`: a plain-http loopback lattice (a laptop, a test).
    let allowLocal: Bool
    /// `MCP_TRUSTED_PROXY_HOPS` (1): which `X-Forwarded-For` entry is the caller for the MCP allowance.
    let trustedProxyHops: Int

    init(_ env: Environment) {
        origin = Self.origin(env.get("MCP_PUBLIC_ORIGIN")) ?? Self.defaultOrigin
        let lattice = env.get("LATTICE_MCP_URL")?.trimmingCharacters(in: .whitespaces) ?? ""
        latticeURL = lattice.isEmpty ? Self.defaultLatticeURL : lattice
        allowLocal = env.get("MCP_ALLOW_LOCAL") == "1"
        trustedProxyHops = max(0, env.get("MCP_TRUSTED_PROXY_HOPS", default: 1))
    }

    /// Scheme, host and port of an http(s) URL; nil for anything else.
    static func origin(_ raw: String?) -> String? {
        guard let raw, let parts = URLComponents(string: raw.trimmingCharacters(in: .whitespaces)),
            let scheme = parts.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = parts.host, !host.isEmpty
        else { return nil }
        let name = host.contains(":") && !host.hasPrefix("[") ? "[\(host.lowercased())]" : host.lowercased()
        return "\(scheme)://\(name)" + (parts.port.map { ":\($0)" } ?? "")
    }

    func server(tools: MapvestTools, transport: any MCPPeerTransport, limiter: any MCPCallLimiter) throws -> MCPServer {
        try MCPServer(
            MCPServerConfiguration(
                name: Self.name, title: "Mapvest",
                description:
                    "Mapvest turns places and objects into investable tickers. Read-only tools: classify a search "
                    + "(search_intent), look a public brand up in the curated seed (brand_lookup), get the research-"
                    + "signal rating for a ticker (rating), and ask the lattice animals (ask_lattice_animals).",
                version: Self.version,
                instructions:
                    "Every tool here is read-only and public. Results say what they rest on (sources); one that "
                    + "cannot cite a source has confidence low. rating is an AI-generated research signal, not "
                    + "investment advice, and insufficient_signal means no rating, not a hold. Quotes, prices and "
                    + "financial statements are not offered.",
                origin: origin, tools: tools.tools,
                peers: [
                    MCPPeerSpec(name: "lattice", url: latticeURL, about: "the lattice animals, the constellation's hub")
                ],
                allowLocal: allowLocal),
            transport: transport, limiter: limiter)
    }
}
