import CRdKafka
import Runtime
import Testing

@testable import Kafka

/// `rd_kafka_destroy` joins librdkafka's threads, so it must never run on the cooperative pool: `RDKafkaHandle`
/// destroys on the dedicated thread that drops it, or hands the destruction to a new one (a precondition in
/// `destroy` stops the process otherwise). The callback context outlives `rd_kafka_destroy`, so its release marks
/// the end of the destruction.
@Suite("librdkafka handle destruction (no broker)")
struct RDKafkaHandleTests {
    /// Watches a context without keeping it alive.
    final class Watch: @unchecked Sendable {
        weak var context: CallbackContext?
    }

    /// A producer client (no broker is contacted before a send) whose context `watch` sees; the handle is dropped
    /// before this returns, on the caller's thread.
    static func makeAndDrop(_ watch: Watch) throws {
        let context = CallbackContext(logger: Logger(label: "handle-tests", level: .error))
        watch.context = context
        let handle = try RDKafkaHandle.make(
            kind: RD_KAFKA_PRODUCER, properties: ["bootstrap.servers": "127.0.0.1:1"], context: context)
        #expect(rd_kafka_name(handle.raw) != nil)
    }

    @Test func droppedOnTheCooperativePoolItIsDestroyedOnADedicatedThread() async throws {
        #expect(!DedicatedThread.isCurrent)
        let watch = Watch()
        try Self.makeAndDrop(watch)
        #expect(await eventually(timeout: .seconds(10)) { watch.context == nil })
    }

    @Test func droppedOnADedicatedThreadItIsDestroyedBeforeTheThreadGoesOn() async throws {
        let destroyedInline = try await onDedicatedThread("handle-test") { () throws -> Bool in
            #expect(DedicatedThread.isCurrent)
            let watch = Watch()
            try Self.makeAndDrop(watch)
            return watch.context == nil
        }
        #expect(destroyedInline)
    }
}
