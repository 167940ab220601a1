import HTTPClient
import Runtime

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One Massive GET with the provider's failure rules: bearer key (none → 503), a per-attempt timeout, retries on
/// 408/425/429/5xx and network errors (pause `Retry-After` or exponential, capped 2 s, never past the caller's
/// `TaskDeadline`), and a 200 whose envelope says `"status":"ERROR"` counted as a failure. The key never appears in
/// URLs or logs; the failure carries only the upstream status and request id. With a pace, every attempt first waits
/// for a slot, and a slot later than the deadline is a 429 at once (the plan's limit, reached here, not upstream).
struct MassiveRequester: Sendable {
    let base: String
    let apiKey: String?
    let settings: MarketSurfaceConfiguration
    let http: HTTPClient
    let logger: Logger
    /// Waits for a request slot under the plan's pace; false when the slot comes too late for the caller's deadline.
    let pace: MarketDataPace?

    /// The body of a successful answer to `path` with the non-nil `query` items (percent-encoded here).
    func get(_ path: String, _ query: [(String, String?)], kind: String) async -> Result<[UInt8], MarketDataFailure> {
        guard let apiKey else { return .failure(.notConfigured) }
        let items = query.compactMap { name, value in
            value.map { "\(name)=\(MarketSymbol.percentEncoded($0))" }
        }
        let url = base + path + (items.isEmpty ? "" : "?" + items.joined(separator: "&"))
        var failure = MarketDataFailure(status: 502)
        for attempt in 0...settings.maxRetries {
            if let pace, !(await pace.acquire(TaskDeadline.current)) {
                count(kind, "paced_out")
                return .failure(MarketDataFailure(status: 429))
            }
            var request = HTTPClientRequest(url: url)
            request.headers = [("Accept", "application/json"), ("Authorization", "Bearer \(apiKey)")]
            request.timeout = settings.timeout
            if let deadline = TaskDeadline.current {
                let left = deadline - .now
                guard left > .milliseconds(50) else { break }
                request.timeout = min(request.timeout, left)
            }
            request.connectTimeout = min(request.connectTimeout, request.timeout)
            var pause = settings.retryDelay * Double(1 << attempt) + .milliseconds(Int.random(in: 0...25))
            let retriable: Bool
            do {
                let response = try await http.execute(request)
                let envelope = MassivePages.envelope(response.body)
                if (200..<300).contains(response.status), envelope.status?.uppercased() != "ERROR" {
                    count(kind, "ok")
                    return .success(response.body)
                }
                failure = MarketDataFailure(status: response.status, requestId: envelope.requestId)
                retriable = [408, 425, 429].contains(response.status) || response.status >= 500
                if let seconds = response.headers["Retry-After"].flatMap(Double.init), seconds >= 0, seconds.isFinite {
                    pause = .milliseconds(Int(seconds * 1000))
                }
                count(kind, "http_error")
            } catch {
                retriable = error.kind != .cancelled
                count(kind, error.kind == .timeout ? "timeout" : "network_error")
            }
            guard retriable, attempt < settings.maxRetries else { break }
            pause = min(pause, .seconds(2))
            if let deadline = TaskDeadline.current, ContinuousClock.now + pause >= deadline { break }
            try? await Task.sleep(for: pause)
        }
        logger.warning(
            "market data request failed",
            [
                LogKeys.marketProvider: "massive", LogKeys.marketKind: .string(kind),
                LogKeys.httpStatus: .int(failure.status),
            ])
        return .failure(failure)
    }

    private func count(_ kind: String, _ outcome: String) {
        MetricsRegistry.shared.counter(
            MetricNames.marketDataRequests, help: "Market data upstream requests",
            labels: ["provider": "massive", "kind": kind, "outcome": outcome]
        ).increment()
    }
}
