import Kafka
import Runtime
import Synchronization
import TestSupport

/// The test broker (the command that runs the tests starts DevBroker and sets `KAFKA_BROKERS`), with the
/// development profile the mock broker needs.
func testConfiguration() throws -> KafkaConfiguration {
    // The test stack's passthrough settings (KAFKA_CONFIG_*) apply here too.
    var configuration = KafkaConfiguration.fromEnvironment(Environment())
    configuration.brokers = try TestEnvironment.require("KAFKA_BROKERS")
    configuration.isDevelopment = true
    return configuration
}

let testLogger = Logger(label: "kafka-tests", level: .warning)

/// Creates fresh topics for one test.
func makeTopics(_ configuration: KafkaConfiguration, _ topics: [(name: String, partitions: Int32)]) async throws {
    try await KafkaAdmin.ensureTopics(
        configuration: configuration, topics: topics, timeout: .seconds(15), logger: testLogger)
}

/// Polls `condition` until it holds or `timeout` passes; returns whether it held.
func eventually(timeout: Duration = .seconds(15), _ condition: @Sendable () async throws -> Bool) async rethrows -> Bool
{
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

/// A thread-safe list tests append to from handlers.
final class Collected<T: Sendable>: Sendable {
    private let items = Mutex<[T]>([])
    func append(_ item: T) { items.withLock { $0.append(item) } }
    var all: [T] { items.withLock { $0 } }
    var count: Int { items.withLock { $0.count } }
}

/// A gate handlers wait on until a test opens it.
final class Gate: Sendable {
    private let open = Atomic<Bool>(false)
    func release() { open.store(true, ordering: .releasing) }
    var isOpen: Bool { open.load(ordering: .acquiring) }
    func wait() async {
        while !open.load(ordering: .acquiring) { try? await Task.sleep(for: .milliseconds(5)) }
    }
}

/// Runs a service in the background and shuts it down at the end of a test.
struct Running<S: Service> {
    let service: S
    let task: Task<Void, any Error>

    init(_ service: S) {
        self.service = service
        self.task = Task { try await service.run() }
    }

    func stop() async throws {
        await service.shutdown()
        try await task.value
    }
}

extension String {
    var bytes: [UInt8] { Array(utf8) }
}

extension Array where Element == UInt8 {
    var text: String { String(decoding: self, as: UTF8.self) }
}

/// Percentile of sorted samples.
func percentile(_ sorted: [Duration], _ p: Double) -> Duration {
    guard !sorted.isEmpty else { return .zero }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
}
