import Foundation
import HTTPClient
import HTTPServer
import Runtime
import TestSupport
import Testing
import Tracing
import UpstreamFakes

@testable import ServiceKit

extension SystemTests {
    /// A collector that never answers and one that answers 503 change no traced request's outcome or latency: the
    /// spans wait in the exporter's queue, its own task retries and then drops them, and shutdown still ends.
    @Suite struct TracingExportTests {
        static let droppedOnExport = MetricsRegistry.shared.counter(
            "otel_spans_dropped_total", help: "Spans not exported, by reason.", labels: ["reason": "export_failed"])

        @Test func aSilentAndAnUnavailableCollectorChangeNoRequest() async throws {
            let upstream = try FakeUpstream(status: 200, json: #"{"ok":true}"#)
            let unavailable = try FakeUpstream(status: 503, json: "{}")
            let silent = try SilentListener()
            let client = try HTTPClient.make(logger: Logger(label: "tracing-export-test", level: .error))
            defer { client.shutdown() }

            for (label, endpoint) in [("silent", silent.url), ("503", unavailable.baseURL)] {
                let env = Environment([
                    "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_BSP_SCHEDULE_DELAY": "50",
                    "OTEL_EXPORTER_OTLP_TIMEOUT": "1000",
                ])
                let configuration = try #require(try TracingConfiguration.fromEnvironment(env, defaultServiceName: "t"))
                let exporter = BatchSpanExporter(
                    configuration: configuration, resource: [Attribute("service.name", "t")],
                    transport: OTLPHTTPTransport(client: client, url: configuration.tracesURL, headers: []),
                    retryPolicy: .init(attempts: 3, initialBackoff: .milliseconds(50)))
                let running = Task { try await exporter.run() }
                let droppedBefore = Self.droppedOnExport.current
                Tracing.install(Tracer(sampler: .alwaysOn, exporter: exporter))
                var slowest = Duration.zero
                for _ in 0..<20 {
                    let started = ContinuousClock.now
                    let status = try await Tracing.withSpan("GET /v1/test", kind: .server) { _ in
                        try await client.execute(HTTPClientRequest(url: upstream.baseURL + "/quote")).status
                    }
                    slowest = max(slowest, ContinuousClock.now - started)
                    #expect(status == 200, "\(label)")
                }
                Tracing.install(nil)
                // Each export attempt to the silent collector takes its whole 1 s timeout: a request that waited for
                // one would take that long.
                #expect(slowest < .milliseconds(500), "\(label): slowest traced request \(slowest)")
                #expect(upstream.lastRequest?.headers["traceparent"]?.hasPrefix("00-") == true)
                await exporter.shutdown()
                let ended = await withTimeLimit(.seconds(15)) { () async -> Bool in
                    (try? await running.value) != nil
                }
                #expect(ended == true, "\(label): the exporter ended after shutdown")
                #expect(exporter.queued == 0)
                #expect(Self.droppedOnExport.current - droppedBefore == 40, "\(label): 20 server + 20 client spans")
            }
            #expect(unavailable.requestCount >= 3, "the 503 collector was retried")
            await upstream.shutdown()
            await unavailable.shutdown()
        }
    }
}

/// A loopback TCP listener that accepts connections into its backlog and never reads or answers.
final class SilentListener: Sendable {
    let fd: Int32
    let url: String

    init() throws {
        let (fd, port) = try loopbackListener(backlog: 64)
        self.fd = fd
        url = "http://127.0.0.1:\(port)"
    }

    deinit { close(fd) }
}
