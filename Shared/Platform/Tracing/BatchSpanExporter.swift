import Runtime
import Synchronization

/// Sends one OTLP/HTTP protobuf body; the way out of the process, so tests can put a loopback receiver behind it.
public protocol OTLPTransport: Sendable {
    /// POSTs `body` (`application/x-protobuf`) within `timeout`: the HTTP status, or nil when no answer came.
    func post(_ body: [UInt8], timeout: Duration) async -> Int?
}

/// Batches finished spans off the request path and exports them (the OpenTelemetry batch span processor).
///
/// - `export` only appends to a bounded queue (`maxQueueSize`); a span that finds it full is dropped and counted in
///   `otel_spans_dropped_total{reason="queue_full"}`. A request never waits for the exporter.
/// - `run()` sends what is queued, `maxBatchSize` spans per POST, every `scheduleDelay` or as soon as a full batch
///   is waiting. A 429, a 5xx or no answer is retried with back-off (`retryPolicy`); a batch that still fails, or
///   is refused with another 4xx, is dropped and counted (`reason="export_failed"`).
/// - `shutdown()` stops the timer; `run()` then sends everything still queued (one attempt per batch once the
///   service group's deadline cancels it) and returns.
public final class BatchSpanExporter: SpanExporting, Service {
    public let name = "otlp-exporter"
    private let configuration: TracingConfiguration
    private let resource: [Attribute]
    private let transport: any OTLPTransport
    private let retryPolicy: RetryPolicy
    private let queue = Mutex<[SpanData]>([])
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    /// How a failed POST is retried: `attempts` in all, waiting `initialBackoff`, doubled each time.
    public struct RetryPolicy: Sendable {
        public var attempts: Int
        public var initialBackoff: Duration

        public init(attempts: Int = 5, initialBackoff: Duration = .milliseconds(200)) {
            self.attempts = attempts
            self.initialBackoff = initialBackoff
        }
    }

    public init(
        configuration: TracingConfiguration, resource: [Attribute], transport: any OTLPTransport,
        retryPolicy: RetryPolicy = RetryPolicy()
    ) {
        self.configuration = configuration
        self.resource = resource
        self.transport = transport
        self.retryPolicy = retryPolicy
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    public func export(_ span: SpanData) {
        let (accepted, batchReady) = queue.withLock { spans -> (Bool, Bool) in
            guard spans.count < configuration.maxQueueSize else { return (false, false) }
            spans.append(span)
            return (true, spans.count >= configuration.maxBatchSize)
        }
        guard accepted else { return ExporterMetrics.droppedQueueFull.increment() }
        if batchReady { wake.yield() }
    }

    public func run() async throws {
        let delay = configuration.scheduleDelay
        let ticker = Task { [wake] in
            while !Task.isCancelled {
                try? await Task.sleep(for: delay)
                wake.yield()
            }
        }
        defer { ticker.cancel() }
        for await _ in wakeups { await sendQueued() }
        await sendQueued()
    }

    public func shutdown() async {
        wake.finish()
    }

    /// Spans waiting to be sent.
    public var queued: Int { queue.withLock { $0.count } }

    private func sendQueued() async {
        while true {
            let batch = queue.withLock { spans -> [SpanData] in
                let batch = Array(spans.prefix(configuration.maxBatchSize))
                spans.removeFirst(batch.count)
                return batch
            }
            guard !batch.isEmpty else { return }
            if await send(batch) {
                ExporterMetrics.exported.increment(by: Int64(batch.count))
            } else {
                ExporterMetrics.droppedExportFailed.increment(by: Int64(batch.count))
            }
        }
    }

    /// One batch, retried on 429, 5xx and no answer; true once the receiver took it.
    private func send(_ batch: [SpanData]) async -> Bool {
        let body = OTLPTraceEncoder.encode(resource: resource, spans: batch)
        var backoff = retryPolicy.initialBackoff
        for attempt in 1...max(1, retryPolicy.attempts) {
            let status = await transport.post(body, timeout: configuration.exportTimeout)
            switch ExportOutcome(status: status) {
            case .accepted: return true
            case .refused: return false
            case .retriable:
                guard attempt < retryPolicy.attempts, !Task.isCancelled else { return false }
                do { try await Task.sleep(for: backoff) } catch { return false }
                backoff *= 2
            }
        }
        return false
    }
}

/// What an OTLP/HTTP answer means for the batch (the OTLP specification's retry rules).
enum ExportOutcome: Equatable {
    case accepted
    case retriable
    case refused

    init(status: Int?) {
        switch status {
        case .none: self = .retriable
        case .some(200..<300): self = .accepted
        case .some(429), .some(500..<600): self = .retriable
        default: self = .refused
        }
    }
}

enum ExporterMetrics {
    static let exported = MetricsRegistry.shared.counter(
        "otel_spans_exported_total", help: "Spans the OTLP receiver accepted.")
    static let droppedQueueFull = MetricsRegistry.shared.counter(
        "otel_spans_dropped_total", help: "Spans not exported, by reason.", labels: ["reason": "queue_full"])
    static let droppedExportFailed = MetricsRegistry.shared.counter(
        "otel_spans_dropped_total", help: "Spans not exported, by reason.", labels: ["reason": "export_failed"])
}
