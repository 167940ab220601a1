import Foundation
import Runtime
import Synchronization
import Testing

struct LoggerTests {
    @Test func writesOneJSONObjectPerLine() throws {
        let sink = LogSink.memory()
        let logger = Logger(label: "test", level: .info, sink: sink).with(["request.id": "r1"])
        logger.info("hello \"world\"\n", ["count": 3, "ok": true])
        logger.debug("hidden")
        #expect(sink.lines.count == 1)
        let line = try #require(sink.lines.first)
        #expect(line.hasSuffix("\n"))
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(object?["msg"] as? String == "hello \"world\"\n")
        #expect(object?["request.id"] as? String == "r1")
        #expect(object?["count"] as? Int == 3)
        #expect(object?["level"] as? String == "info")
    }

    @Test func writesLogfmtLinesInTextFormat() throws {
        let sink = LogSink.memory()
        let logger = Logger(label: "identify", level: .info, sink: sink, format: .text).with(["request.id": "r1"])
        logger.warning("command dropped: budget spent", ["kafka.offset": 7, "reason": "a \"quoted\" =x", "ok": true])
        let line = try #require(sink.lines.first)
        let ts = try #require(line.split(separator: " ").first)
        #expect(ts.hasPrefix("ts=") && ts.hasSuffix("Z"))
        #expect(
            line.dropFirst(ts.count)
                == " level=warning logger=identify msg=\"command dropped: budget spent\" kafka.offset=7 ok=true"
                + " reason=\"a \\\"quoted\\\" =x\" request.id=r1\n")
    }

    @Test func formatFollowsLogFormatAndMemorySinksStayJSON() {
        #expect(LogFormat.fromEnvironment(["LOG_FORMAT": "text"]) == .text)
        #expect(LogFormat.fromEnvironment(["LOG_FORMAT": "JSON"]) == .json)
        #expect(Logger(label: "x", sink: .memory()).format == .json)
        #expect(Logger(label: "x", format: .text).format == .text)
    }
}

struct MetricsTests {
    @Test func rendersPrometheusText() {
        let registry = MetricsRegistry()
        registry.counter("jobs_total", help: "Jobs", labels: ["kind": "a"]).increment(by: 2)
        registry.counter("jobs_total", help: "Jobs", labels: ["kind": "a"]).increment()
        registry.gauge("in_flight", help: "In flight").set(5)
        registry.histogram("latency_seconds", help: "Latency", buckets: [0.1, 1]).observe(0.5)
        let text = registry.render()
        #expect(text.contains("jobs_total{kind=\"a\"} 3"))
        #expect(text.contains("in_flight 5"))
        #expect(text.contains("latency_seconds_bucket{le=\"0.1\"} 0"))
        #expect(text.contains("latency_seconds_bucket{le=\"1.0\"} 1"))
        #expect(text.contains("latency_seconds_count 1"))
    }

    @Test func oneSeriesWhateverTheLabelOrder() {
        let registry = MetricsRegistry()
        let first = registry.counter("calls_total", help: "Calls", labels: ["route": "/a", "status": "200"])
        let again = registry.counter("calls_total", help: "Calls", labels: ["status": "200", "route": "/a"])
        #expect(first === again)
        #expect(registry.counter("calls_total", help: "Calls", labels: ["route": "/b", "status": "200"]) !== first)
        first.increment()
        again.increment()
        #expect(registry.render().contains("calls_total{route=\"/a\",status=\"200\"} 2"))
    }
}

struct EnvironmentTests {
    @Test func typedAccess() {
        let env = Environment(["A": "12", "B": "", "F": "1", "KAFKA_CONFIG_SECURITY_PROTOCOL": "ssl", "MS": "250"])
        #expect(env.get("A", default: 0) == 12)
        #expect(env.get("B") == nil)
        #expect(env.get("B", default: "x") == "x")
        #expect(env.flag("F"))
        #expect(env.milliseconds("MS", default: .seconds(1)) == .milliseconds(250))
        #expect(env.withPrefix("KAFKA_CONFIG_") == ["SECURITY_PROTOCOL": "ssl"])
        #expect(!env.isDevelopment)
        #expect(Environment(["MAPVEST_ENV": "dev"]).isDevelopment)
        #expect(throws: ConfigurationError.self) { try env.require("MISSING") }
        #expect(throws: Never.self) { try env.validate() }
    }

    @Test func aSetButUnparseableVariableIsAStartupErrorNamingIt() throws {
        let env = Environment(["PORT": "abc", "TIMEOUT_MS": "-5", "OK": "7"])
        #expect(env.get("PORT", default: 3001) == 3001)
        #expect(env.milliseconds("TIMEOUT_MS", default: .seconds(1)) == .seconds(1))
        #expect(env.get("OK", default: 0) == 7)
        let error = try #require(throws: ConfigurationError.self) { try env.validate() }
        #expect(error.key == "PORT")
        #expect(error.description.contains("PORT is set to \"abc\""))
        #expect(error.description.contains("TIMEOUT_MS"))
        #expect(!error.description.contains("OK "))
    }

    @Test func requireParsesOrNamesTheVariable() throws {
        let env = Environment(["N": " 42 ", "BAD": "4x"])
        #expect(try env.require("N", as: Int.self) == 42)
        let bad = try #require(throws: ConfigurationError.self) { try env.require("BAD", as: Int.self) }
        #expect(bad.key == "BAD")
        let missing = try #require(throws: ConfigurationError.self) { try env.require("NONE", as: Int.self) }
        #expect(missing.reason == "is required")
    }

    @Test func timestampsAreISO8601WithMilliseconds() {
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 1_700_000_000.123)) == "2023-11-14T22:13:20.123Z")
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 951_782_400.25)) == "2000-02-29T00:00:00.250Z")
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 253_402_300_799)) == "9999-12-31T23:59:59.000Z")
    }
}

struct ServiceGroupTests {
    final class Recorder: Service, @unchecked Sendable {
        let name: String
        let events: Events
        let stop = AsyncStream<Void>.makeStream()
        init(_ name: String, _ events: Events) {
            self.name = name
            self.events = events
        }
        func run() async throws {
            await events.add("run \(name)")
            for await _ in stop.stream { break }
        }
        func shutdown() async {
            await events.add("stop \(name)")
            stop.continuation.finish()
        }
    }
    actor Events {
        var list: [String] = []
        func add(_ e: String) { list.append(e) }
    }

    @Test func stopsInReverseOrder() async throws {
        let events = Events()
        let readiness = Readiness()
        let group = ServiceGroup(
            services: [Recorder("a", events), Recorder("b", events)], readiness: readiness,
            logger: Logger(label: "t", sink: .memory()))
        async let running: Void = group.run()
        while await events.list.count < 2 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(readiness.isReady)
        group.triggerShutdown(reason: "test")
        try await running
        #expect(!readiness.isReady)
        #expect(Array(await events.list.suffix(2)) == ["stop b", "stop a"])
    }

    /// Runs until asked to stop, or returns (or throws) by itself after `endsAfter`.
    final class Ending: Service {
        let name: String
        let endsAfter: Duration
        let throwing: Bool
        init(_ name: String, endsAfter: Duration, throwing: Bool) {
            self.name = name
            self.endsAfter = endsAfter
            self.throwing = throwing
        }
        struct Failure: Error {}
        func run() async throws {
            try? await Task.sleep(for: endsAfter)
            if throwing { throw Failure() }
        }
        func shutdown() async {}
    }

    @Test func aServiceThatReturnsOnItsOwnStopsTheGroupAndMakesItThrow() async throws {
        let events = Events()
        let readiness = Readiness()
        let group = ServiceGroup(
            services: [Recorder("a", events), Ending("quitter", endsAfter: .milliseconds(50), throwing: false)],
            readiness: readiness, logger: Logger(label: "t", sink: .memory()))
        let error = await #expect(throws: ServiceGroupError.self) { try await group.run() }
        #expect(error?.service == "quitter")
        #expect(!readiness.isReady)
        #expect(await events.list == ["run a", "stop a"])
    }

    @Test func aServiceThatThrowsStopsTheOthersAndTheErrorSurfaces() async throws {
        let events = Events()
        let group = ServiceGroup(
            services: [Recorder("a", events), Ending("broken", endsAfter: .milliseconds(50), throwing: true)],
            readiness: Readiness(), logger: Logger(label: "t", sink: .memory()))
        await #expect(throws: Ending.Failure.self) { try await group.run() }
        #expect(await events.list.last == "stop a")
    }

    /// A service whose shutdown never finishes: the group gives up at its one total deadline.
    final class Stuck: Service {
        let name = "stuck"
        func run() async throws {
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(10)) }
        }
        func shutdown() async {
            try? await Task.sleep(for: .seconds(30))
        }
    }

    @Test func oneTotalDeadlineBoundsTheShutdown() async throws {
        let events = Events()
        let group = ServiceGroup(
            services: [Recorder("a", events), Stuck()], readiness: Readiness(),
            logger: Logger(label: "t", sink: .memory()), shutdownTimeout: .milliseconds(300), onStuck: {})
        async let running: Void = group.run()
        while await events.list.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        let started = ContinuousClock.now
        group.triggerShutdown(reason: "test")
        try await running
        // The stuck part used the whole budget; "a" was cancelled rather than waited for beyond it.
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(await events.list == ["run a"])
    }
}

struct LogRateLimitTests {
    @Test func repeatedFailureLinesAreRateLimitedWithASuppressedCount() async throws {
        let sink = LogSink.memory(repeatInterval: .milliseconds(300))
        let logger = Logger(label: "flood", level: .info, sink: sink)
        let suppressed = MetricsRegistry.shared.counter(
            "log_lines_suppressed_total", help: "Repeated warning and error lines not written (rate-limited).",
            labels: ["level": "warning"])
        let before = suppressed.current
        for _ in 0..<500 { logger.warning("postgres connect failed", ["error": "refused"]) }
        logger.warning("another failure")
        for _ in 0..<3 { logger.info("routine line") }
        #expect(sink.lines.count == 5)  // first flood line, the other warning, three info lines (never limited)
        #expect(suppressed.current - before >= 499)  // shared registry: other tests may add
        try await Task.sleep(for: .milliseconds(350))
        logger.warning("postgres connect failed", ["error": "refused"])
        let last = try #require(sink.lines.last)
        let object = try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any]
        #expect(object?["msg"] as? String == "postgres connect failed")
        #expect(object?["log.suppressed"] as? Int == 499)
    }
}

struct RetryTests {
    struct Flaky: Error {}

    @Test func retriesUntilSuccessAndStopsAtTheDeadlineOrAFatalError() async throws {
        var failures = 3
        var attempts: [Int] = []
        let value = try await Retry.run(
            until: nil, backoff: Backoff(initial: .milliseconds(1), maximum: .milliseconds(4)),
            onFailure: { _, attempt in attempts.append(attempt) }
        ) { () async throws -> Int in
            if failures > 0 {
                failures -= 1
                throw Flaky()
            }
            return 7
        }
        #expect(value == 7)
        #expect(attempts == [1, 2, 3])

        let start = ContinuousClock.now
        await #expect(throws: Flaky.self) {
            try await Retry.run(until: .now + .milliseconds(200), backoff: Backoff(initial: .milliseconds(20))) {
                throw Flaky()
            }
        }
        #expect(ContinuousClock.now - start < .seconds(2))

        var once: [Int] = []
        do {
            try await Retry.run(
                until: nil, shouldRetry: { _ in false }, onFailure: { _, attempt in once.append(attempt) }
            ) {
                throw Flaky()
            }
            Issue.record("expected the first failure to be rethrown")
        } catch {
            #expect(error is Flaky)
        }
        #expect(once == [1])
    }

    @Test func backoffDoublesWithJitterUpToItsMaximum() {
        var backoff = Backoff(initial: .milliseconds(100), maximum: .milliseconds(400))
        let pauses = (0..<5).map { _ in backoff.next() }
        let bounds: [(Duration, Duration)] = [(75, 125), (150, 250), (300, 500), (300, 500), (300, 500)].map {
            (.milliseconds($0.0), .milliseconds($0.1))
        }
        for (pause, (low, high)) in zip(pauses, bounds) { #expect(pause >= low && pause <= high) }
    }
}

struct NumbersTests {
    @Test func clampedIntRangeChecksBeforeConverting() {
        #expect(1e19.clampedInt(1...200) == 200)
        #expect((-1e300).clampedInt(1...200) == 1)
        #expect(Double.greatestFiniteMagnitude.clampedInt(Int.min...Int.max) == Int.max)
        #expect((-Double.greatestFiniteMagnitude).clampedInt(Int.min...Int.max) == Int.min)
        #expect(Double(Int.max).clampedInt(0...Int.max) == Int.max)
        #expect(42.9.clampedInt(1...200) == 42)
        #expect((-3.7).clampedInt(-10...10) == -3)
        #expect(Double.infinity.clampedInt(1...200) == nil)
        #expect(Double.nan.clampedInt(1...200) == nil)
    }

    @Test func timestampsOfHugeDatesDoNotTrap() {
        #expect(!Timestamp.iso8601(Date(timeIntervalSince1970: 9e18)).isEmpty)
        #expect(!Timestamp.iso8601(Date(timeIntervalSince1970: -9e18)).isEmpty)
        #expect(!Timestamp.iso8601(.distantFuture).isEmpty)
    }
}

@Suite("Single-flight cache (no stack)")
struct SingleFlightCacheTests {
    final class Count: Sendable {
        let value = Atomic<Int>(0)
    }

    @Test func concurrentCallersShareOneComputationAndLaterOnesReadTheCache() async {
        let cache = SingleFlightCache<String, Int>(ttl: .seconds(60))
        let computed = Count()
        let values = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    await cache.value(for: "k") {
                        computed.value.add(1, ordering: .relaxed)
                        try? await Task.sleep(for: .milliseconds(50))
                        return 7
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(values == Array(repeating: 7, count: 20))
        #expect(computed.value.load(ordering: .relaxed) == 1)
        #expect(await cache.value(for: "k") { 8 } == 7)
        cache.removeAll()
        #expect(await cache.value(for: "k") { 8 } == 8)
    }

    @Test func aResultKeepRefusesIsNotCachedAndEntriesExpire() async throws {
        let cache = SingleFlightCache<String, Int?>(ttl: .milliseconds(50))
        #expect(await cache.value(for: "k", keep: { $0 != nil }) { nil } == nil)
        #expect(await cache.value(for: "k", keep: { $0 != nil }) { 1 } == 1)
        #expect(await cache.value(for: "k") { 2 } == 1)
        try await Task.sleep(for: .milliseconds(120))
        #expect(await cache.value(for: "k") { 3 } == 3)
    }
}
