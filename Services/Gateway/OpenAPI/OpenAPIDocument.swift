import HTTPServer
import Runtime
import ServiceKit

/// Our OpenAPI document (docs/openapi.yaml, embedded at build by scripts/embed-openapi.sh), served at
/// `GET /openapi.yaml`, and the check that every route the gateway serves has an entry in it.
enum OpenAPIDocument {
    /// `GET /openapi.yaml`.
    static let template = "/openapi.yaml"

    static var response: HTTPResponse { .text(200, yaml, contentType: "application/yaml") }

    /// Every operation of the document as `METHOD /path/{param}`, read from its `paths:` block (two-space path
    /// keys, four-space method keys — the layout docs/openapi.yaml keeps).
    static func operations(in text: String) -> Set<String> {
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        var operations = Set<String>()
        var inPaths = false
        var path: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if !line.hasPrefix(" ") {
                inPaths = line == "paths:"
                continue
            }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), !line.hasPrefix("   "), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast()).trimmingQuotes()
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":"), let path {
                let method = String(line.dropFirst(4).dropLast())
                if methods.contains(method) { operations.insert(method.uppercased() + " " + path) }
            }
        }
        return operations
    }

    /// The served operations (`METHOD /path/:param` templates) that have no entry in the document.
    static func undocumented(_ served: [(method: String, template: String)], in text: String = yaml) -> [String] {
        let documented = operations(in: text)
        return served.map { $0.method + " " + openAPIPath($0.template) }.filter { !documented.contains($0) }.sorted()
    }

    /// Logs every served operation the document lacks and exports their number as `gateway_undocumented_routes`
    /// (a system test requires 0: a new route needs its entry in docs/openapi.yaml).
    static func report(_ router: Router, logger: Logger, metrics: MetricsRegistry = .shared) {
        let missing = undocumented(router.served + AdminEndpoints.paths.map { ("GET", $0) })
        for operation in missing {
            logger.warning("route has no entry in docs/openapi.yaml", [LogKeys.httpRoute: .string(operation)])
        }
        metrics.gauge("gateway_undocumented_routes", help: "Served routes without an entry in docs/openapi.yaml.")
            .set(Int64(missing.count))
    }

    /// `/v1/rating/:ticker` → `/v1/rating/{ticker}`.
    static func openAPIPath(_ template: String) -> String {
        template.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.first == ":" ? "{" + $0.dropFirst() + "}" : String($0) }
            .joined(separator: "/")
    }
}

extension String {
    fileprivate func trimmingQuotes() -> String {
        guard count >= 2, let first, first == "'" || first == "\"", last == first else { return self }
        return String(dropFirst().dropLast())
    }
}
