import Runtime

/// Tracing as the standard OpenTelemetry variables set it. No `OTEL_EXPORTER_OTLP_ENDPOINT` (nor
/// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) means tracing is off: no tracer is installed and nothing is recorded.
public struct TracingConfiguration: Sendable, Equatable {
    /// Where spans are POSTed: `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`, or the traces endpoint as given.
    public let tracesURL: String
    /// `OTEL_EXPORTER_OTLP_HEADERS`: `key=value` pairs, comma-separated, values URL-decoded (how Logfire's write
    /// token is passed). Never logged.
    public let headers: [(String, String)]
    /// `OTEL_SERVICE_NAME`, else the binary's name.
    public let serviceName: String
    /// `OTEL_TRACES_SAMPLER` / `OTEL_TRACES_SAMPLER_ARG`; default parent-based, always on.
    public let sampler: Sampler
    /// `OTEL_BSP_MAX_QUEUE_SIZE` (2048): spans waiting beyond this are dropped and counted.
    public let maxQueueSize: Int
    /// `OTEL_BSP_MAX_EXPORT_BATCH_SIZE` (512).
    public let maxBatchSize: Int
    /// `OTEL_BSP_SCHEDULE_DELAY` (5000 ms): the longest a span waits before its batch is sent.
    public let scheduleDelay: Duration
    /// `OTEL_EXPORTER_OTLP_TIMEOUT` (10000 ms): one POST's deadline.
    public let exportTimeout: Duration

    public static func == (a: TracingConfiguration, b: TracingConfiguration) -> Bool {
        a.tracesURL == b.tracesURL && a.headers.map { "\($0)=\($1)" } == b.headers.map { "\($0)=\($1)" }
            && a.serviceName == b.serviceName && a.sampler == b.sampler && a.maxQueueSize == b.maxQueueSize
            && a.maxBatchSize == b.maxBatchSize && a.scheduleDelay == b.scheduleDelay
            && a.exportTimeout == b.exportTimeout
    }

    /// The configuration, or nil when no endpoint is set. Invalid values are noted on `env` for `validate()`.
    public static func fromEnvironment(_ env: Environment, defaultServiceName: String) throws -> TracingConfiguration? {
        let url: String
        if let traces = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
            url = traces
        } else if let base = env.get("OTEL_EXPORTER_OTLP_ENDPOINT") {
            url = (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/v1/traces"
        } else {
            return nil
        }
        guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
            throw ConfigurationError(key: "OTEL_EXPORTER_OTLP_ENDPOINT", reason: "is not an http(s) URL")
        }
        let sampler: Sampler
        switch Sampler.named(env.get("OTEL_TRACES_SAMPLER"), argument: env.get("OTEL_TRACES_SAMPLER_ARG")) {
        case .success(let s): sampler = s
        case .failure(let error): throw ConfigurationError(key: "OTEL_TRACES_SAMPLER", reason: error.reason)
        }
        guard let headers = parseHeaders(env.get("OTEL_EXPORTER_OTLP_HEADERS") ?? "") else {
            throw ConfigurationError(key: "OTEL_EXPORTER_OTLP_HEADERS", reason: "is not a list of key=value pairs")
        }
        return TracingConfiguration(
            tracesURL: url, headers: headers, serviceName: env.get("OTEL_SERVICE_NAME") ?? defaultServiceName,
            sampler: sampler, maxQueueSize: max(1, env.get("OTEL_BSP_MAX_QUEUE_SIZE", default: 2048)),
            maxBatchSize: max(1, env.get("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", default: 512)),
            scheduleDelay: env.milliseconds("OTEL_BSP_SCHEDULE_DELAY", default: .seconds(5)),
            exportTimeout: env.milliseconds("OTEL_EXPORTER_OTLP_TIMEOUT", default: .seconds(10)))
    }

    /// `k1=v1,k2=v2` with percent-encoded values (W3C Baggage-like, as the OTLP exporter spec says); nil if malformed.
    static func parseHeaders(_ raw: String) -> [(String, String)]? {
        var out: [(String, String)] = []
        for pair in raw.split(separator: ",") {
            guard let equals = pair.firstIndex(of: "=") else { return nil }
            let key = pair[..<equals].trimmingSpacesAndTabs
            guard !key.isEmpty, let value = percentDecoded(pair[pair.index(after: equals)...].trimmingSpacesAndTabs)
            else { return nil }
            out.append((String(key), value))
        }
        return out
    }

    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let b = iterator.popFirst() {
            guard b == 0x25 else {
                bytes.append(b)
                continue
            }
            guard iterator.count >= 2, let hex = HexDigits.parse(iterator.prefix(2).map(lowercased)[...]) else {
                return nil
            }
            bytes.append(UInt8(hex))
            iterator = iterator.dropFirst(2)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func lowercased(_ b: UInt8) -> UInt8 { (0x41...0x46).contains(b) ? b + 0x20 : b }
}
