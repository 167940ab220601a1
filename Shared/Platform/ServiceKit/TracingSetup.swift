import HTTPClient
import Runtime
import Tracing

/// Turns tracing on when `OTEL_EXPORTER_OTLP_ENDPOINT` is set: installs the process's tracer and returns the
/// exporter, a service the group runs (and flushes on shutdown). Unset: nothing is installed, nil.
enum TracingSetup {
    static func install(environment: Environment, serviceName: String, http: HTTPClient, logger: Logger) throws
        -> BatchSpanExporter?
    {
        guard
            let configuration = try TracingConfiguration.fromEnvironment(
                environment, defaultServiceName: serviceName.lowercased())
        else { return nil }
        let exporter = BatchSpanExporter(
            configuration: configuration, resource: [Attribute("service.name", .string(configuration.serviceName))],
            transport: OTLPHTTPTransport(client: http, url: configuration.tracesURL, headers: configuration.headers))
        Tracing.install(Tracer(sampler: configuration.sampler, exporter: exporter))
        logger.info("tracing on", [LogKeys.otelEndpoint: .string(configuration.tracesURL)])
        return exporter
    }
}

/// OTLP/HTTP over the binary's HTTP client; `OTEL_EXPORTER_OTLP_HEADERS` go on every POST (never logged).
struct OTLPHTTPTransport: OTLPTransport {
    let client: HTTPClient
    let url: String
    let headers: [(String, String)]

    func post(_ body: [UInt8], timeout: Duration) async -> Int? {
        let request = HTTPClientRequest(
            method: "POST", url: url, headers: headers + [("Content-Type", "application/x-protobuf")], body: body,
            timeout: timeout, connectTimeout: min(timeout, .seconds(3)), maxResponseBytes: 1 << 20)
        return try? await client.execute(request).status
    }
}
