import Foundation
import Runtime
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
    }

    @Test func timestampsAreISO8601WithMilliseconds() {
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 1_700_000_000.123)) == "2023-11-14T22:13:20.123Z")
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
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
