import Contracts
import HTTPServer
import MCP

/// The MCP paths as gateway routes (docs/COMPATIBILITY.md#mcp-routes): `/mcp` (and `/mcp/`), `/mcp/:peer`, the manifest
/// and its server-card alias, for every method, so a GET is the library's JSON-RPC 405 rather than the API's flat 404.
/// The global limiter counts them like any route; a body over 64 KiB is refused unread with `-32600`.
struct MCPRoutes: Sendable {
    static let methods = ["POST", "GET", "HEAD", "DELETE", "PUT", "PATCH"]
    static let templates = ["/mcp", "/mcp/", "/mcp/:peer", "/mcp/:peer/"] + MCPServer.manifestPaths

    let server: MCPServer
    let address: MCPAddress

    var routes: [Route] {
        Self.templates.flatMap { template in
            Self.methods.map { method in
                Route(method, template, bodyLimit: MCPServer.bodyLimit, tooLarge: MCPServer.unreadable.http) {
                    context in
                    let request = MCPRequest(context.request, address: address.resolve(context.request.head))
                    return await server.handle(request)?.http ?? .error(.notFound)
                }
            }
        }
    }
}

/// The address the MCP allowance counts: with `MCP_TRUSTED_PROXY_HOPS = N` (default 1) the Nth `X-Forwarded-For`
/// entry from the right — the one our own proxy appended — and no header means an unknown address, never limited
/// (docs/COMPATIBILITY.md#mcp-routes); with 0 the socket peer.
struct MCPAddress: Sendable {
    let rule: ClientAddress

    func resolve(_ head: HTTPRequestHead) -> String {
        guard rule.trustedHops > 0 else { return head.remoteAddress }
        guard let forwarded = head.headers["X-Forwarded-For"],
            forwarded.contains(where: { $0 != "," && !$0.isWhitespace })
        else { return "" }
        return rule.resolve(head)
    }
}
