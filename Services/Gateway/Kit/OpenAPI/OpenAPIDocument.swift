import Foundation
import HTTPServer
import Runtime
import ServiceKit

/// Our OpenAPI document (docs/openapi.yaml, read once at start), served byte for byte at `GET /openapi.yaml`, and
/// the check that every route the gateway serves has an entry in it.
package struct OpenAPIDocument: Sendable {
    /// `GET /openapi.yaml`.
    static let template = "/openapi.yaml"

    /// The file's bytes, served unchanged.
    let bytes: [UInt8]

    init(bytes: [UInt8]) { self.bytes = bytes }

    var response: HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", "application/yaml")], body: bytes)
    }

    /// The document as text (the operations check reads it).
    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Reads `OPENAPI_PATH` when set, else the first of: `docs/openapi.yaml` under the working directory,
    /// `openapi.yaml` beside the executable (an image), `docs/openapi.yaml` in the executable's folder and each folder
    /// above it (a checkout's `.build/...`). A file that is not a regular file of at most 16 MiB, cannot be read or
    /// declares no operation is refused. Blocking file reads: call it before serving, off the cooperative pool.
    package static func load(path: String?) throws -> OpenAPIDocument {
        let file =
            try path ?? candidates().first(where: FileManager.default.fileExists(atPath:))
            ?? {
                throw ConfigurationError(key: "OPENAPI_PATH", reason: "is unset and no docs/openapi.yaml was found")
            }()
        let attributes = try? FileManager.default.attributesOfItem(atPath: file)
        guard attributes?[.type] as? FileAttributeType == .typeRegular,
            let size = (attributes?[.size] as? NSNumber)?.intValue, size <= 16 << 20
        else {
            throw ConfigurationError(
                key: "OPENAPI_PATH", reason: "names \(file), which is not a file of at most 16 MiB")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw ConfigurationError(key: "OPENAPI_PATH", reason: "names \(file), which cannot be read: \(error)")
        }
        let document = OpenAPIDocument(bytes: [UInt8](data))
        guard !operations(in: document.text).isEmpty else {
            throw ConfigurationError(key: "OPENAPI_PATH", reason: "names \(file), which declares no operation")
        }
        return document
    }

    private static func candidates() -> [String] {
        var paths = [FileManager.default.currentDirectoryPath + "/docs/openapi.yaml"]
        let running =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments.first ?? ""
        let executable = URL(fileURLWithPath: running).resolvingSymlinksInPath()
        var folder = executable.deletingLastPathComponent()
        paths.append(folder.appendingPathComponent("openapi.yaml").path)
        while folder.path != "/" && !folder.path.isEmpty {
            paths.append(folder.appendingPathComponent("docs/openapi.yaml").path)
            folder = folder.deletingLastPathComponent()
        }
        return paths
    }

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
    func undocumented(_ served: [(method: String, template: String)]) -> [String] {
        let documented = Self.operations(in: text)
        return served.map { $0.method + " " + Self.openAPIPath($0.template) }.filter { !documented.contains($0) }
            .sorted()
    }

    /// Logs every served operation the document lacks and exports their number as `gateway_undocumented_routes`
    /// (a system test requires 0: a new route needs its entry in docs/openapi.yaml).
    func report(_ router: Router, logger: Logger, metrics: MetricsRegistry = .shared) {
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
