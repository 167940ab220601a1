import HTTPServer

/// An `MCPServer` as a complete `HTTPHandler` for `HTTPServer`: its paths answered, a body over 64 KiB refused
/// unread with `-32600`, every other path a bare 404. `address` picks the caller's address from the head.
public struct MCPHTTPHandler: HTTPHandler {
    let server: MCPServer
    let address: @Sendable (HTTPRequestHead) -> String

    public init(server: MCPServer, address: @escaping @Sendable (HTTPRequestHead) -> String) {
        self.server = server
        self.address = address
    }

    public func head(_ head: HTTPRequestHead) async -> HeadDecision<Void> {
        guard MCPServer.owns(head.path) else { return .respond(.empty(404)) }
        return .readBody(limit: MCPServer.bodyLimit, tooLarge: MCPServer.unreadable.http, state: ())
    }

    public func handle(_ request: HTTPRequest, state: Void) async -> HTTPResponse {
        await server.handle(MCPRequest(request, address: address(request.head)))?.http ?? .empty(404)
    }
}
