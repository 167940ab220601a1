import HTTPServer
import MCP

/// Wraps the gateway's handler so that every failure on an MCP path is JSON-RPC shaped
/// (docs/COMPATIBILITY.md#mcp-routes): a flat `{"error": …}` answered there by the edge (the global limiter's 429, a
/// 503 when overloaded, an unreadable request) becomes `{"jsonrpc":"2.0","id":null,"error":{code, message}}` with the
/// same status and headers. Other paths and successful answers pass through untouched.
struct MCPFailureShape<Inner: HTTPHandler>: HTTPHandler {
    let inner: Inner

    init(_ inner: Inner) { self.inner = inner }

    func immediate(_ head: HTTPRequestHead) -> HTTPResponse? {
        inner.immediate(head).map { MCPServer.owns(head.path) ? Self.reshape($0) : $0 }
    }

    func head(_ head: HTTPRequestHead) async -> HeadDecision<Inner.RequestState> {
        let decision = await inner.head(head)
        guard MCPServer.owns(head.path) else { return decision }
        switch decision {
        case .respond(let response): return .respond(Self.reshape(response))
        case .readBody(let limit, let tooLarge, let state):
            return .readBody(limit: limit, tooLarge: Self.reshape(tooLarge), state: state)
        }
    }

    func handle(_ request: HTTPRequest, state: Inner.RequestState) async -> HTTPResponse {
        let response = await inner.handle(request, state: state)
        return MCPServer.owns(request.path) ? Self.reshape(response) : response
    }

    /// A flat error body as a JSON-RPC error: 429 → `-32002`, anything else `-32000`.
    static func reshape(_ response: HTTPResponse) -> HTTPResponse {
        guard response.status >= 400, let body = MCPValue.parse(response.body), body["jsonrpc"] == nil,
            let message = body["error"]?.string
        else { return response }
        let error = MCPRPC.failure(nil, response.status == 429 ? -32002 : -32000, message)
        var reshaped = response
        reshaped.body = error.jsonBytes
        return reshaped
    }
}
