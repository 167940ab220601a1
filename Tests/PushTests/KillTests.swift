import Contracts
import Foundation
import HTTPServer
import Kafka
import Postgres
import PushAdapters
import Runtime
import TestSupport
import Testing

/// A PushDispatcher process SIGKILLed in the middle of an Expo handoff (docs/COMPATIBILITY.md#push-delivery): its
/// session locks go with its Postgres session, its lease expires, and another replica of the consumer group gets the
/// uncommitted request and hands the notification off.
@Suite struct KillTests {
    @Test func aReplicaKilledMidHandoffLeavesALeaseThatExpiresAndAnotherReplicaRetries() async throws {
        let schema = Stack.schemaName("kill")
        let suffix = Hex.random(bytes: 5)
        let topic = "mapvest.test.push.requests.\(suffix)"
        let group = "mapvest.test.push.dispatch.\(suffix)"
        let kafka = try Stack.kafka()
        let logger = Logger(label: "kill-test", level: .warning)
        try await KafkaAdmin.ensureTopics(
            configuration: kafka, topics: [(topic, 1)], timeout: .seconds(15), logger: logger)
        // The first handoff never gets an answer (its replica dies holding it); later ones succeed.
        let expo = try FakeExpo { messages, attempt in
            if attempt == 1 {
                try? await Task.sleep(for: .seconds(30))
                return .error(503, "gone")
            }
            return await FakeExpo.ok(messages, attempt)
        }
        let survivor = try await Stack.runtime(schema: schema, expo: expo, extra: ["PUSH_LEASE_MS": "1500"])
        try await withCleanup(
            {
                try await killAndRetry(
                    survivor: survivor, expo: expo, topic: topic, group: group, kafka: kafka, logger: logger)
            },
            cleanup: {
                await survivor.close()
                await expo.shutdown()
                await Stack.dropSchema(schema)
            })
    }

    func killAndRetry(
        survivor: PushRuntime, expo: FakeExpo, topic: String, group: String, kafka: KafkaConfiguration, logger: Logger
    ) async throws {
        let db = survivor.db
        let s = survivor.schema
        let schema = s.name
        let user = Make.user()
        let token = Make.expoToken()
        let tokenId = try await survivor.store.registerEnabled(user, token)

        let doomed = try await ServiceProcess.start(
            "PushDispatcher",
            extra: [
                "PUSH_ROLES": "dispatch", "PUSH_SCHEMA": schema, "PUSH_REQUESTS_TOPIC": topic,
                "PUSH_DISPATCH_GROUP": group,
                "EXPO_BASE_URL": expo.baseURL, "EXPO_PACE_PER_SECOND": "0", "PUSH_LEASE_MS": "1500",
                "EXPO_TIMEOUT_MS": "60000", "POSTGRES_POOL_SIZE": "2",
            ])
        defer { doomed.kill() }
        let producer = try KafkaProducer.make(configuration: kafka, logger: logger)
        let request = pushRequest(users: [user])
        _ = try await producer.send(
            topic: topic, key: Array(user.utf8), value: Array(try JSONEncoder().encode(request)), headers: [])

        // Mid-handoff: Expo has the request, the replica holds the token's session lock and a live lease.
        #expect(await eventually(timeout: .seconds(30)) { expo.sendRequests == 1 }, "\(doomed.log.suffix(1500))")
        let lockQuery: PostgresQuery = """
            SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 AND granted
               AND ((classid::bigint << 32) | objid::bigint) = hashtextextended(\(token), 0)
            """
        #expect(try await count(db, lockQuery) == 1)
        #expect(try await count(db, "SELECT count(*) FROM \(unescaped: s.deliveries) WHERE lease_until > now()") == 1)

        doomed.kill(signal: SIGKILL)  // no finalize, no unlock, no commit
        #expect(await eventually(timeout: .seconds(10)) { (try? await count(db, lockQuery)) == 0 })
        #expect(try await count(db, "SELECT count(*) FROM \(unescaped: s.deliveries)") == 1)  // the lease is left …
        #expect(
            await eventually(timeout: .seconds(5)) {  // … until it expires
                (try? await count(db, "SELECT count(*) FROM \(unescaped: s.deliveries) WHERE lease_until > now()")) == 0
            })

        // Another replica of the group takes over the partition and the uncommitted request.
        let dispatcher = survivor.dispatcher
        let intake = try PushRequestIntake(
            configuration: kafka, topic: topic, groupId: group, producer: producer, maxInFlight: 4, logger: logger
        ) { _ = await dispatcher.deliver($0) }
        let running = Task { try await intake.run() }
        #expect(await eventually(timeout: .seconds(40)) { expo.sent.count == 1 })
        #expect(expo.sent.first?.installationId == tokenId)
        #expect(
            await eventually(timeout: .seconds(5)) {
                (try? await count(db, "SELECT count(*) FROM \(unescaped: s.deliveries)")) == 0
            })
        #expect(try await count(db, lockQuery) == 0)
        let lastSent = try await db.query(
            "SELECT prefs->'last_sent'->>'identify_done' AS k FROM \(unescaped: s.tokens) WHERE id = \(tokenId)")
        #expect(lastSent.first?.string("k") == request.dedupe[0].key)
        await intake.shutdown()
        _ = await running.result
        await producer.shutdown()
    }
}
