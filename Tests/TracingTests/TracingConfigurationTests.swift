import Runtime
import Testing

@testable import Tracing

struct TracingConfigurationTests {
    @Test func noEndpointMeansOff() throws {
        #expect(try TracingConfiguration.fromEnvironment(Environment([:]), defaultServiceName: "gateway") == nil)
    }

    @Test func readsTheStandardVariables() throws {
        let env = Environment([
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318/",
            "OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Bearer%20abc, x-team = core",
            "OTEL_SERVICE_NAME": "identify-eu", "OTEL_TRACES_SAMPLER": "parentbased_traceidratio",
            "OTEL_TRACES_SAMPLER_ARG": "0.25", "OTEL_BSP_MAX_QUEUE_SIZE": "64", "OTEL_BSP_SCHEDULE_DELAY": "200",
        ])
        let config = try #require(try TracingConfiguration.fromEnvironment(env, defaultServiceName: "identify"))
        #expect(config.tracesURL == "http://127.0.0.1:4318/v1/traces")
        #expect(config.headers.map { "\($0)=\($1)" } == ["Authorization=Bearer abc", "x-team=core"])
        #expect(config.serviceName == "identify-eu")
        #expect(config.sampler == .parentBased(root: .ratio(0.25)))
        #expect(config.maxQueueSize == 64 && config.maxBatchSize == 512)
        #expect(config.scheduleDelay == .milliseconds(200) && config.exportTimeout == .seconds(10))
        try env.validate()
    }

    @Test func refusesWhatDoesNotParseNamingTheVariable() {
        for (key, value) in [
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4318"), ("OTEL_TRACES_SAMPLER", "sometimes"),
            ("OTEL_EXPORTER_OTLP_HEADERS", "novalue"), ("OTEL_EXPORTER_OTLP_HEADERS", "k=%zz"),
        ] {
            var values = ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"]
            values[key] = value
            #expect {
                _ = try TracingConfiguration.fromEnvironment(Environment(values), defaultServiceName: "x")
            } throws: { ($0 as? ConfigurationError)?.key == key }
        }
    }
}
