import Foundation
import Postgres
import Runtime
import ServiceKit
import Synchronization
import TestSupport
import Testing

extension SystemTests {
    /// The transactional outbox against the real Postgres: an entry exists exactly when its transaction committed,
    /// a failed publish is relayed later under the same id, and concurrent relays publish each entry once.
    @Suite struct OutboxTests {
        /// Records what the outbox published; fails the first `failures` attempts.
        final class Broker: Sendable {
            private let state: Mutex<(published: [String], failuresLeft: Int)>
            init(failures: Int = 0) { state = Mutex(([], failures)) }
            var published: [String] { state.withLock { $0.published } }

            func deliver(_ entry: OutboxEntry) throws {
                try state.withLock { state in
                    if state.failuresLeft > 0 {
                        state.failuresLeft -= 1
                        throw CancellationError()
                    }
                    state.published.append(entry.id)
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
