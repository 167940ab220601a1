import Synchronization

/// Process-wide Prometheus registry. Metrics are created once with bounded label values
/// (route templates, topic names — never user ids) and rendered in text exposition format.
public final class MetricsRegistry: Sendable {
    public static let shared = MetricsRegistry()

    private struct Family {
        let help: String
        let type: String
        var series: [String: AnyMetric]  // rendered labels → metric
    }

    /// A series as callers name it: looking it up needs no label rendering (the hot path asks for the same series
    /// on every request).
    private struct SeriesKey: Hashable {
        let name: String
        let labels: [String: String]
    }

    private struct State {
        var families: [String: Family] = [:]
        var index: [SeriesKey: AnyMetric] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    public func counter(_ name: String, help: String, labels: [String: String] = [:]) -> Counter {
        metric(name, help: help, type: "counter", labels: labels) { Counter() }
    }

    public func gauge(_ name: String, help: String, labels: [String: String] = [:]) -> Gauge {
        metric(name, help: help, type: "gauge", labels: labels) { Gauge() }
    }

    public func histogram(
        _ name: String, help: String, labels: [String: String] = [:], buckets: [Double] = Histogram.latencyBuckets
    ) -> Histogram {
        metric(name, help: help, type: "histogram", labels: labels) { Histogram(buckets: buckets) }
    }

    private func metric<M: AnyMetric>(
        _ name: String, help: String, type: String, labels: [String: String], make: () -> M
    ) -> M {
        let seriesKey = SeriesKey(name: name, labels: labels)
        if let known = state.withLock({ $0.index[seriesKey] }) as? M { return known }
        let key = Self.render(labels)
        return state.withLock { state in
            var family = state.families[name] ?? Family(help: help, type: type, series: [:])
            if let existing = family.series[key] as? M {
                state.index[seriesKey] = existing
                return existing
            }
            let created = make()
            family.series[key] = created
            state.families[name] = family
            state.index[seriesKey] = created
            return created
        }
    }

    /// The text exposition of every metric.
    public func render() -> String {
        let snapshot = state.withLock { $0.families }
        var out = ""
        for (name, family) in snapshot.sorted(by: { $0.key < $1.key }) {
            out += "# HELP \(name) \(family.help)\n# TYPE \(name) \(family.type)\n"
            for (labels, metric) in family.series.sorted(by: { $0.key < $1.key }) {
                out += metric.render(name: name, labels: labels)
            }
        }
        return out
    }

    /// Current values of the counters in families `names`, keyed `name{labels}` as the exposition renders them.
    public func counterValues(_ names: Set<String>) -> [String: Int64] {
        let snapshot = state.withLock { $0.families }
        var out: [String: Int64] = [:]
        for name in names {
            for (labels, metric) in snapshot[name]?.series ?? [:] {
                if let counter = metric as? Counter { out["\(name){\(labels)}"] = counter.current }
            }
        }
        return out
    }

    static func render(_ labels: [String: String]) -> String {
        labels.sorted(by: { $0.key < $1.key }).map { "\($0.key)=\(JSONText.quote($0.value))" }.joined(separator: ",")
    }
}

protocol AnyMetric: Sendable {
    func render(name: String, labels: String) -> String
}

private func braces(_ labels: String) -> String { labels.isEmpty ? "" : "{\(labels)}" }

/// A monotonically increasing count.
public final class Counter: AnyMetric {
    private let value = Atomic<Int64>(0)
    public func increment(by n: Int64 = 1) { value.add(n, ordering: .relaxed) }
    public var current: Int64 { value.load(ordering: .relaxed) }
    func render(name: String, labels: String) -> String { "\(name)\(braces(labels)) \(current)\n" }
}

/// A value that goes up and down.
public final class Gauge: AnyMetric {
    private let value = Atomic<Int64>(0)
    public func set(_ n: Int64) { value.store(n, ordering: .relaxed) }
    public func add(_ n: Int64) { value.add(n, ordering: .relaxed) }
    public var current: Int64 { value.load(ordering: .relaxed) }
    func render(name: String, labels: String) -> String { "\(name)\(braces(labels)) \(current)\n" }
}

/// A distribution of observations (seconds, by default) in fixed buckets.
public final class Histogram: AnyMetric {
    public static let latencyBuckets: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
    ]
    private struct State {
        var counts: [Int64]
        var sum: Double = 0
        var count: Int64 = 0
    }
    private let buckets: [Double]
    private let state: Mutex<State>

    init(buckets: [Double]) {
        self.buckets = buckets
        self.state = Mutex(State(counts: Array(repeating: 0, count: buckets.count)))
    }

    public func observe(_ value: Double) {
        state.withLock { s in
            if let i = buckets.firstIndex(where: { value <= $0 }) { s.counts[i] += 1 }
            s.sum += value
            s.count += 1
        }
    }

    /// Observes the time elapsed since `start`, in seconds.
    public func observe(since start: ContinuousClock.Instant) {
        let d = ContinuousClock.now - start
        observe(Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
    }

    func render(name: String, labels: String) -> String {
        let s = state.withLock { $0 }
        var out = ""
        var cumulative: Int64 = 0
        let sep = labels.isEmpty ? "" : ","
        for (i, bound) in buckets.enumerated() {
            cumulative += s.counts[i]
            out += "\(name)_bucket{\(labels)\(sep)le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "\(name)_bucket{\(labels)\(sep)le=\"+Inf\"} \(s.count)\n"
        out += "\(name)_sum\(braces(labels)) \(s.sum)\n\(name)_count\(braces(labels)) \(s.count)\n"
        return out
    }
}
