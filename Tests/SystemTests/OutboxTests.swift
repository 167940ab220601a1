import Foundation
import Postgres
import Runtime
import ServiceKit
import Synchronization
import TestSupport
import Testing
import Tracing

extension SystemTests {
    /// The transactional outbox against the real Postgres: an entry exists exactly when its transaction committed,
    /// a failed publish is relayed later under the same id, and concurrent relays publish each entry once.
    @Suite struct OutboxTests {
        /// Records what the outbox published; fails the first `failures` attempts.
        final class Broker: Sendable {
            private let state: Mutex<(published: [String], failuresLeft: Int, traces: [TraceContext?])>
            init(failures: Int = 0) { state = Mutex(([], failures, [])) }
            var published: [String] { state.withLock { $0.published } }
            /// The span each published entry was handed over in (what its producer span would continue).
            var traces: [TraceContext?] { state.withLock { $0.traces } }

            func deliver(_ entry: OutboxEntry) throws {
                let current = Tracing.current?.context
                try state.withLock { state in
                    if state.failuresLeft > 0 {
                        state.failuresLeft -= 1
                        throw CancellationError()
                    }
                    state.published.append(entry.id)
                    state.traces.append(current)
                }
            }
        }

        struct Rollback: Error {}

        static func outbox(_ broker: Broker) async throws -> (Outbox, PostgresPool) {
            let db = try await PostgresPool.make(
                url: try TestEnvironment.require("POSTGRES_URL"), size: 4,
                logger: Logger(label: "outbox-test", sink: .memory()))
            let schema = TestEnvironment.uniqueName("outbox").lowercased().filter { $0.isLetter || $0.isNumber }
            try await db.migrate(schema: schema, migrations: [Outbox.migration(version: 1, schema: schema)])
            let outbox = Outbox(schema: schema, db: db, logger: Logger(label: "outbox-test", sink: .memory())) {
                entry, _ in try broker.deliver(entry)
            }
            return (outbox, db)
        }

        static func entry(_ n: Int) -> OutboxEntry {
            OutboxEntry(
                id: UUID().uuidString.lowercased(), topic: "mapvest.events.v1", key: "user-\(n)",
                value: Array(#"{"n":\#(n)}"#.utf8))
        }

        @Test func aRolledBackTransactionLeavesNoEntry() async throws {
            let broker = Broker()
            let (outbox, db) = try await Self.outbox(broker)
            await #expect(throws: Rollback.self) {
                try await db.transaction { connection in
                    try await outbox.stage(Self.entry(1), on: connection)
                    throw Rollback()
                }
            }
            #expect(try await outbox.relayBacklog(olderThan: .zero) == 0)
            #expect(try await outbox.backlog() == 0)
            #expect(broker.published.isEmpty)
            await db.close()
        }

        @Test func aCommittedEntryIsPublishedOnceEvenWhenTheFirstPublishFails() async throws {
            let broker = Broker(failures: 1)
            let (outbox, db) = try await Self.outbox(broker)
            let entry = Self.entry(2)
            try await db.transaction { connection in try await outbox.stage(entry, on: connection) }
            // The writer's attempt after COMMIT fails: the entry stays, nothing published.
            await outbox.relay([entry], deadline: .now + .seconds(1))
            #expect(broker.published.isEmpty)
            #expect(try await outbox.backlog() == 1)
            // Not yet old enough for the relay: its writer may still be publishing it.
            #expect(try await outbox.relayBacklog(olderThan: .seconds(60)) == 0)
            // The relay publishes it under the same id, once; a second pass finds nothing.
            #expect(try await outbox.relayBacklog(olderThan: .zero) == 1)
            #expect(try await outbox.relayBacklog(olderThan: .zero) == 0)
            #expect(broker.published == [entry.id])
            #expect(try await outbox.backlog() == 0)
            await db.close()
        }

        /// Keeps exported spans in memory.
        final class Spans: SpanExporting {
            private let spans = Mutex<[SpanData]>([])
            func export(_ span: SpanData) { spans.withLock { $0.append(span) } }
            var exported: [SpanData] { spans.withLock { $0 } }
        }

        @Test func theRelayPublishesALeftEntryInTheTraceThatStagedIt() async throws {
            let broker = Broker(failures: 1)
            let (outbox, db) = try await Self.outbox(broker)
            let spans = Spans()
            Tracing.install(Tracer(sampler: .alwaysOn, exporter: spans))
            defer { Tracing.install(nil) }
            let (traced, untraced) = (Self.entry(5), Self.entry(6))
            let request = try await Tracing.withSpan("POST /v1/test", kind: .server) { span in
                try await db.transaction { connection in try await outbox.stage(traced, on: connection) }
                await outbox.relay([traced], deadline: .now + .seconds(1))  // fails: left for the relay
                return span?.context
            }
            try await db.transaction { connection in try await outbox.stage(untraced, on: connection) }
            // The relay runs outside any span (its own service task), as in a binary.
            #expect(try await outbox.relayBacklog(olderThan: .zero) == 2)
            #expect(broker.published == [traced.id, untraced.id])
            let relay = try #require(spans.exported.first { $0.name == "outbox relay" })
            let staged = try #require(request)
            #expect(relay.context.traceID == staged.traceID && relay.parentSpanID == staged.spanID)
            #expect(relay.attributes.contains(Attribute("messaging.destination.name", "mapvest.events.v1")))
            #expect(broker.traces.first??.spanID == relay.context.spanID)
            #expect(broker.traces.last == .some(nil))
            #expect(spans.exported.filter { $0.name == "outbox relay" }.count == 1)
            await db.close()
        }

        @Test func aSuccessfulPublishAfterCommitLeavesNothingForTheRelay() async throws {
            let broker = Broker()
            let (outbox, db) = try await Self.outbox(broker)
            let entries = (0..<3).map(Self.entry)
            try await db.transaction { connection in
                for entry in entries { try await outbox.stage(entry, on: connection) }
            }
            await outbox.relay(entries, deadline: .now + .seconds(1))
            #expect(try await outbox.relayBacklog(olderThan: .zero) == 0)
            #expect(broker.published == entries.map(\.id))
            await db.close()
        }

        @Test func concurrentRelaysPublishEachEntryOnce() async throws {
            let broker = Broker()
            let (outbox, db) = try await Self.outbox(broker)
            let entries = (0..<250).map(Self.entry)
            try await db.transaction { connection in
                for entry in entries { try await outbox.stage(entry, on: connection) }
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        while try await outbox.relayBacklog(olderThan: .zero, limit: 20) > 0 {}
                    }
                }
                try await group.waitForAll()
            }
            #expect(broker.published.count == entries.count)
            #expect(Set(broker.published) == Set(entries.map(\.id)))
            #expect(try await outbox.backlog() == 0)
            await db.close()
        }
    }
}
