import Tracing

/// A client span per outbound request (`POST api.example.com`: method and host, never the path or query), and the
/// `traceparent` / `tracestate` headers that let the upstream continue the trace.
enum HTTPClientTracing {
    static func traced(
        _ request: HTTPClientRequest, isolation: isolated (any Actor)? = #isolation,
        _ send: (HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse
    ) async throws(HTTPClientError) -> HTTPClientResponse {
        let host = Self.host(of: request.url)
        let attributes = [
            Attribute("http.request.method", .string(request.method)), Attribute("server.address", .string(host)),
        ]
        let result = await Tracing.withChildSpan("\(request.method) \(host)", attributes: attributes) {
            span -> Result<HTTPClientResponse, HTTPClientError> in
            var traced = request
            traced.headers.removeAll { $0.0.lowercased() == "traceparent" || $0.0.lowercased() == "tracestate" }
            traced.headers += span?.context.headers ?? []
            do throws(HTTPClientError) {
                let response = try await send(traced)
                span?.setAttribute("http.response.status_code", .int(Int64(response.status)))
                if response.status >= 500 { span?.setStatus(.error("upstream answered \(response.status)")) }
                return .success(response)
            } catch {
                span?.recordError(error)
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The URL's host (no user info, port or path).
    static func host(of url: String) -> String {
        var rest = Substring(url)
        if let colon = rest.firstIndex(of: ":"), rest[colon...].hasPrefix("://") {
            rest = rest[rest.index(colon, offsetBy: 3)...]
        }
        rest = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        if rest.first == "[" { return String(rest.prefix { $0 != "]" }) + "]" }
        return String(rest.prefix { $0 != ":" })
    }
}
