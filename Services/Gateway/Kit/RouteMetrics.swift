import Runtime
import Synchronization

/// A route's metric handles, created once so the hot path never renders label sets: the latency histogram and one
/// counter per status code seen.
final class RouteMetrics: Sendable {
    private let template: String
    private let method: String
    private let latency: Histogram
    private let counters = Mutex<[Int: Counter]>([:])

    init(template: String, method: String) {
        self.template = template
        self.method = method
        latency = MetricsRegistry.shared.histogram(
            "gateway_request_duration_seconds", help: "HTTP request latency by route",
            labels: ["route": template, "method": method])
    }

    func record(status: Int, seconds: Double) {
        latency.observe(seconds)
        let counter = counters.withLock { counters in
            if let existing = counters[status] { return existing }
            let created = MetricsRegistry.shared.counter(
                MetricNames.gatewayRequests, help: "HTTP requests by route",
                labels: ["route": template, "method": method, "status": String(status)])
            counters[status] = created
            return created
        }
        counter.increment()
    }

    /// Handles for requests that match no route (admin paths, preflight, 404s), by label.
    static func unrouted(_ template: String, method: String) -> RouteMetrics {
        let key = method + " " + template
        return cache.withLock { cache in
            if let existing = cache[key] { return existing }
            let created = RouteMetrics(template: template, method: method)
            cache[key] = created
            return created
        }
    }

    private static let cache = Mutex<[String: RouteMetrics]>([:])
}

/// Request ids: a random per-process prefix and a counter — unique, and cheap on the hot path.
enum RequestIds {
    private static let prefix = String(UInt64.random(in: 0...UInt64.max) & 0xFFFF_FFFF_FFFF, radix: 16)
    private static let counter = Atomic<UInt64>(0)

    static func next() -> String {
        prefix + "-" + String(counter.add(1, ordering: .relaxed).newValue, radix: 16)
    }
}
