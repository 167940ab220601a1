import HTTPServer

/// What a route needs from the request pipeline once its body (if any) has been read.
struct RouteContext: Sendable {
    let request: HTTPRequest
    /// Path parameters by name (`:ticker` → `ticker`), percent-decoded.
    let parameters: [String: String]
    let requestId: String
}

/// One HTTP route: its method, path template (the label used in logs and metrics — never the raw path, which may hold
/// token ids) and how much body it accepts.
struct Route: Sendable {
    let method: String
    let template: String
    /// Largest body read; a larger declared or streamed body is answered with `tooLarge` without being read.
    let bodyLimit: Int
    let tooLarge: HTTPResponse
    let handle: @Sendable (RouteContext) async -> HTTPResponse

    static let jsonBodyLimit = 1 << 20

    init(
        _ method: String, _ template: String, bodyLimit: Int = Route.jsonBodyLimit,
        tooLarge: HTTPResponse = .error(413, "request body too large"),
        _ handle: @escaping @Sendable (RouteContext) async -> HTTPResponse
    ) {
        self.method = method
        self.template = template
        self.bodyLimit = bodyLimit
        self.tooLarge = tooLarge
        self.handle = handle
    }

    fileprivate var segments: [Substring] { template.split(separator: "/", omittingEmptySubsequences: false) }
}

/// Matches method + path against route templates whose `:name` segments capture one path segment.
struct Router: Sendable {
    private let routes: [(route: Route, segments: [Substring])]

    init(_ routes: [Route]) {
        self.routes = routes.map { ($0, $0.segments) }
    }

    func match(method: String, path: String) -> (Route, [String: String])? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        for (route, segments) in routes where route.method == method && segments.count == parts.count {
            var parameters: [String: String] = [:]
            var matched = true
            for (segment, part) in zip(segments, parts) {
                if segment.first == ":" {
                    guard !part.isEmpty, let decoded = String(part).removingPercentEncodingSafely else {
                        matched = false
                        break
                    }
                    parameters[String(segment.dropFirst())] = decoded
                } else if segment != part {
                    matched = false
                    break
                }
            }
            if matched { return (route, parameters) }
        }
        return nil
    }
}

extension String {
    /// Percent-decoding that returns nil on malformed escapes or invalid UTF-8 instead of trapping.
    var removingPercentEncodingSafely: String? {
        var bytes: [UInt8] = []
        var it = utf8.makeIterator()
        while let c = it.next() {
            if c == UInt8(ascii: "%") {
                guard let h = it.next(), let l = it.next(), let hi = hexValue(h), let lo = hexValue(l) else { return nil }
                bytes.append(hi << 4 | lo)
            } else {
                bytes.append(c)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

private func hexValue(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
    default: nil
    }
}
