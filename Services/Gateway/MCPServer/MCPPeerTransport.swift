import HTTPClient

/// How a server reaches its peers: one POST, whatever the answer. Implementations never throw and never follow
/// redirects.
public protocol MCPPeerTransport: Sendable {
    func post(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration) async -> MCPPeerReply
}

/// What one POST to a peer came back with.
public enum MCPPeerReply: Sendable {
    case response(status: Int, contentType: String, body: [UInt8])
    /// No usable response: `timeout`, `unreachable`, `redirect-refused`.
    case failed(reason: String)

    /// The status, 0 when there was no response.
    var status: Int {
        if case .response(let status, _, _) = self { return status }
        return 0
    }

    /// The failure's reason; nil when a response arrived.
    var failureReason: String? {
        if case .failed(let reason) = self { return reason }
        return nil
    }
}

/// Peers over libcurl: redirects refused (a 3xx is `redirect-refused`), replies capped at 256 KiB (a larger one is
/// dropped as `unreachable`), the caller's deadline for the whole exchange.
public struct HTTPPeerTransport: MCPPeerTransport {
    static let replyLimit = 256 * 1024
    let client: HTTPClient

    public init(client: HTTPClient) { self.client = client }

    public func post(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration) async -> MCPPeerReply {
        let request = HTTPClientRequest(
            method: "POST", url: url, headers: headers, body: body, timeout: timeout,
            connectTimeout: min(timeout, .seconds(5)), maxResponseBytes: Self.replyLimit, followRedirects: false)
        do {
            let response = try await client.execute(request)
            if (300..<400).contains(response.status) { return .failed(reason: "redirect-refused") }
            return .response(
                status: response.status, contentType: response.headers["Content-Type"] ?? "", body: response.body)
        } catch {
            switch error.kind {
            case .timeout: return .failed(reason: "timeout")
            case .cancelled: return .failed(reason: "cancelled")
            case .connect, .other: return .failed(reason: "unreachable")
            }
        }
    }
}
