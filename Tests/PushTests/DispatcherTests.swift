import Contracts
import ExpoPush
import Foundation
import HTTPServer
import Postgres
import PushAdapters
import PushCore
import Runtime
import Synchronization
import TestSupport
import Testing
import UpstreamFakes

/// The delivery path (docs/COMPATIBILITY.md#push-delivery, #expo) with one in-process replica against real Postgres and
/// a fake Expo.
@Suite struct DispatcherTests {
    /// A replica on a fresh schema; everything is torn down afterwards. Hands the log sink to `body` for redaction checks.
    static func withReplica(
        extra: [String: String] = [:], expo: FakeExpo? = nil,
        _ body: (PushRuntime, FakeExpo, LogSink) async throws -> Void
    ) async throws {
        let fake = try expo ?? FakeExpo()
        let schema = Stack.schemaName("disp")
        let sink = LogSink.memory()
        let runtime = try await Stack.runtime(schema: schema, expo: fake, extra: extra, sink: sink)
        do {
            try await body(runtime, fake, sink)
        } catch {
            await runtime.close()
            await fake.shutdown()
            await Stack.dropSchema(schema)
            throw error
        }
        await runtime.close()
        await fake.shutdown()
        await Stack.dropSchema(schema)
    }

    /// No log line holds an Expo token, an opaque token id, a delivery id, a title or a body.
    static func expectRedacted(_ sink: LogSink, secrets: [String], sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let lines = sink.lines
        let ids = try Regex("(push|delivery)_[0-9a-f]{32}")
        for line in lines {
            for secret in secrets where line.contains(secret) {
                Issue.record("log line leaks a secret: \(line.prefix(200))", sourceLocation: sourceLocation)
            }
            #expect(!line.contains("ExponentPushToken["), sourceLocation: sourceLocation)
            #expect(line.firstMatch(of: ids) == nil, sourceLocation: sourceLocation)
        }
    }

    @Test func deliversOnlyToOptedInActiveClaimsWithTheEnvelopeAndDedupesRedelivery() async throws {
        try await Self.withReplica(extra: ["EXPO_ACCESS_TOKEN": "expo-secret"]) { rt, expo, sink in
            let (alice, bob, carol) = (Make.user(), Make.user(), Make.user())
            let aliceToken = Make.expoToken()
            let aliceId = try await rt.store.registerEnabled(alice, aliceToken)
            let bobPhone = try await rt.store.registerEnabled(bob, Make.expoToken())
            _ = try await rt.store.registerEnabled(bob, Make.expoToken(), keys: [.dailyBrief])  // other event only
            let bobOff = try await rt.store.registerEnabled(bob, Make.expoToken())
            _ = try await rt.store.writePrefs(
                userId: bob, tokenId: bobOff, patch: ["notifications_enabled": .bool(false)])
            // Carol: a legacy row without the product switch counts as enabled.
            let carolToken = Make.expoToken()
            let carolId = try await rt.store.register(
                userId: carol, expoToken: carolToken, platform: "ios", deviceId: nil
            ).id
            try await rt.db.execute(
                "UPDATE \(unescaped: rt.schema.tokens) SET prefs = '{\"identify_done\": true}'::jsonb WHERE id = \(carolId)"
            )
            // A stranger's opted-in device is never a recipient.
            _ = try await rt.store.registerEnabled(Make.user(), Make.expoToken())

            let request = pushRequest(
                users: [alice, bob, carol], title: "Found it", body: "$SBUX — Starbucks",
                data: ["kind": .string("identify_done"), "ticker": .string("SBUX")], ttl: 100)
            let summary = await rt.dispatcher.deliver(request)
            #expect(summary.successes == 3 && summary.failures == 0 && summary.errors == 0)
            let sent = expo.sent
            #expect(Set(sent.compactMap(\.installationId)) == [aliceId, bobPhone, carolId])
            let toAlice = try #require(sent.first { $0.to == aliceToken })
            #expect(toAlice.title == "Found it" && toAlice.body == "$SBUX — Starbucks")
            #expect(toAlice.sound == "default" && toAlice.priority == "high" && toAlice.ttl == 300)
            #expect(toAlice.categoryId == "mapvest-company-v1")
            #expect(toAlice.dataString("ticker") == "SBUX")
            #expect(toAlice.envelopeString("eventKind") == "identify_done")
            #expect(toAlice.deliveryId?.hasPrefix("delivery_") == true)
            #expect(Set(sent.compactMap(\.deliveryId)).count == 3)
            let issued = try #require(toAlice.envelopeString("issuedAt").flatMap(Timestamp.parse))
            let expires = try #require(toAlice.envelopeString("expiresAt").flatMap(Timestamp.parse))
            #expect(abs(expires.timeIntervalSince(issued) - 300) < 0.01)
            #expect(expo.upstream.lastRequest?.headers["Authorization"] == "Bearer expo-secret")
            // last_sent records the dedupe key; the batch's claims are gone; tickets wait for receipts.
            let lastSent = try await rt.db.query(
                "SELECT prefs->'last_sent'->>'identify_done' AS k FROM \(unescaped: rt.schema.tokens) WHERE id = \(aliceId)"
            )
            #expect(lastSent.first?.string("k") == request.dedupe[0].key)
            #expect(try await count(rt.db, "SELECT count(*) FROM \(unescaped: rt.schema.deliveries)") == 0)
            #expect(
                try await count(
                    rt.db, "SELECT coalesce(sum(cardinality(ticket_ids)), 0) FROM \(unescaped: rt.schema.receipts)")
                    == 3)

            // Redelivered (Kafka at-least-once), even by several replicas at once: nothing new is handed off.
            async let r1 = rt.dispatcher.deliver(request)
            async let r2 = rt.dispatcher.deliver(request)
            let again = await [r1, r2]
            #expect(again.allSatisfy { $0.successes == 0 && $0.failures == 0 })
            #expect(expo.sent.count == 3)
            #expect(!sink.lines.isEmpty)
            try Self.expectRedacted(sink, secrets: [aliceToken, carolToken, aliceId, "Found it", "Starbucks"])
        }
    }

    @Test func deviceScopedRequestsReachOnlyThatInstallationAndBatchesHoldAtMostOneHundred() async throws {
        try await Self.withReplica { rt, expo, _ in
            let user = Make.user()
            var ids: [String] = []
            for _ in 0..<230 {
                ids.append(try await rt.store.registerEnabled(user, Make.expoToken(), keys: [.localBrief]))
            }
            let one = await rt.dispatcher.deliver(pushRequest(users: [user], eventKey: .localBrief, tokenId: ids[7]))
            #expect(one.successes == 1)
            #expect(expo.sent.map(\.installationId) == [ids[7]])
            expo.reset()
            let all = await rt.dispatcher.deliver(pushRequest(users: [user], eventKey: .localBrief))
            #expect(all.successes == 230)
            #expect(expo.sendRequests == 3)
            #expect(
                expo.upstream.requests.allSatisfy { request in
                    ((try? JSONDecoder().decode([JSONValue].self, from: Data(request.body)))?.count ?? 0) <= 100
                })
            #expect(Set(expo.sent.compactMap(\.installationId)) == Set(ids))
            // A stale or foreign tokenId reaches nobody.
            #expect(
                await rt.dispatcher.deliver(pushRequest(users: [Make.user()], eventKey: .localBrief, tokenId: ids[0]))
                    .successes == 0)
        }
    }

    @Test func deviceNotRegisteredPrunesTheInstallationAtFinalizeAndFromReceipts() async throws {
        let dead = Mutex<Set<String>>([])
        let expo = try FakeExpo { messages, _ in
            let deadTokens = dead.withLock { $0 }
            return FakeExpo.tickets(
                messages.map {
                    deadTokens.contains($0.to) ? FakeExpo.deviceNotRegistered : .object(["status": .string("ok")])
                })
        }
        // Receipts are polled with a token (dev without one does not poll them).
        try await Self.withReplica(extra: ["EXPO_RECEIPT_DELAY_MS": "0", "EXPO_ACCESS_TOKEN": "dev-token"], expo: expo)
        {
            rt, expo, _ in
            let user = Make.user()
            let (t1, t2, t3) = (Make.expoToken(), Make.expoToken(), Make.expoToken())
            let id1 = try await rt.store.registerEnabled(user, t1)
            let id2 = try await rt.store.registerEnabled(user, t2)
            let id3 = try await rt.store.registerEnabled(user, t3)
            dead.withLock { $0 = [t1] }
            let summary = await rt.dispatcher.deliver(pushRequest(users: [user]))
            #expect(summary.successes == 2 && summary.failures == 1 && summary.invalidTokens == 1)
            #expect(
                try await count(rt.db, "SELECT count(*) FROM \(unescaped: rt.schema.tokens) WHERE id = \(id1)") == 0)
            #expect(
                try await count(
                    rt.db,
                    "SELECT count(*) FROM \(unescaped: rt.schema.claims) WHERE expo_token = \(t1) AND token_id IS NULL")
                    == 1)

            // Receipts: t2's ticket says DeviceNotRegistered later; t3 is fine.
            let rows = try await rt.db.query("SELECT ticket_ids, token_ids FROM \(unescaped: rt.schema.receipts)")
            let pairs = rows.flatMap { zip($0.stringArray("ticket_ids") ?? [], $0.stringArray("token_ids") ?? []) }
            #expect(Set(pairs.map(\.1)) == [id2, id3])
            for (ticket, tokenId) in pairs { expo.setReceipt(ticket, tokenId == id2 ? "DeviceNotRegistered" : "ok") }
            await rt.maintenance.runOnce()
            #expect(expo.receiptCalls.count == 1 && expo.receiptCalls[0].count == 2)
            #expect(
                try await count(rt.db, "SELECT count(*) FROM \(unescaped: rt.schema.tokens) WHERE id = \(id2)") == 0)
            #expect(
                try await count(rt.db, "SELECT count(*) FROM \(unescaped: rt.schema.tokens) WHERE id = \(id3)") == 1)
            #expect(try await count(rt.db, "SELECT count(*) FROM \(unescaped: rt.schema.receipts)") == 0)
        }
    }

    @Test func productionGateClosedSendsNothingAndSaysSo() async throws {
        try await Self.withReplica(extra: ["MAPVEST_ENV": "production", "EXPO_ACCESS_TOKEN": "set"]) { rt, expo, sink in
            #expect(!rt.configuration.dispatchEnabled)
            let user = Make.user()
            _ = try await rt.store.registerEnabled(user, Make.expoToken())
            _ = try await rt.store.registerEnabled(user, Make.expoToken())
            let summary = await rt.dispatcher.deliver(pushRequest(users: [user]))
            #expect(summary.successes == 0 && summary.failures == 2 && summary.failureReason == .disabled)
            #expect(expo.sendRequests == 0)
            #expect(sink.lines.contains { $0.contains("production gate") && $0.contains("EXPO_PUSH_SECURITY_ENABLED") })
            #expect(sink.lines.contains { $0.contains("expo dispatch disabled") })
            #expect(MetricsRegistry.shared.render().contains("push_expo_dispatch_enabled"))
        }
    }

    @Test func aLiveLeaseElsewhereIsWaitedOut() async throws {
        try await Self.withReplica(extra: ["PUSH_LEASE_MS": "600"]) { rt, expo, _ in
            let user = Make.user()
            let token = Make.expoToken()
            let id = try await rt.store.registerEnabled(user, token)
            let request = pushRequest(users: [user])
            // Another replica holds this delivery's lease (and then died): it expires, then this replica sends.
            try await rt.db.execute(
                """
                INSERT INTO \(unescaped: rt.schema.deliveries) (claim_id, delivery_group, token_id, user_id, expo_token, dedupe_slot, dedupe_key, lease_until)
                VALUES ('delivery_other', 'delivery_other', \(id), \(user), \(token), 'identify_done', \(request.dedupe[0].key), now() + interval '500 milliseconds')
                """)
            let started = ContinuousClock.now
            let summary = await rt.dispatcher.deliver(request)
            #expect(summary.successes == 1)
            #expect(ContinuousClock.now - started >= .milliseconds(400))
            #expect(expo.sent.count == 1)
        }
    }

    @Test func consentWithdrawnBetweenClaimAndHandoffIsNotSent() async throws {
        let paceKey = "mapvest:test:pace:\(Hex.random(bytes: 6))"
        try await Self.withReplica(extra: ["EXPO_PACE_PER_SECOND": "1", "EXPO_PACE_KEY": paceKey]) { rt, expo, _ in
            let user = Make.user()
            let id = try await rt.store.registerEnabled(user, Make.expoToken())
            // Drain the shared bucket so the claimed batch waits about a second for the pace, before its locks.
            _ = await ExpoPace(
                ratePerSecond: 1, redis: rt.redis, key: paceKey, logger: Logger(label: "t", level: .error)
            ).reserve(1)
            async let delivered = rt.dispatcher.deliver(pushRequest(users: [user]))
            #expect(
                await eventually(timeout: .seconds(5)) {
                    (try? await count(rt.db, "SELECT count(*) FROM \(unescaped: rt.schema.deliveries)")) == 1
                })
            _ = try await rt.store.writePrefs(userId: user, tokenId: id, patch: ["identify_done": .bool(false)])
            let outcome = await delivered
            #expect(outcome.successes == 0 && outcome.skipped == 1 && outcome.failures == 0)
            #expect(expo.sendRequests == 0)
            #expect(try await count(rt.db, "SELECT count(*) FROM \(unescaped: rt.schema.deliveries)") == 0)
        }
    }

    @Test func maintenanceSweepsExpiredLeases() async throws {
        try await Self.withReplica { rt, _, _ in
            try await rt.db.execute(
                """
                INSERT INTO \(unescaped: rt.schema.deliveries) (claim_id, delivery_group, token_id, user_id, expo_token, dedupe_slot, dedupe_key, lease_until)
                VALUES ('delivery_a', 'delivery_a', 'push_x', 'usr_x', \(Make.expoToken()), 's', 'k', now() - interval '1 second'),
                       ('delivery_b', 'delivery_b', 'push_y', 'usr_y', \(Make.expoToken()), 's', 'k', now() + interval '1 hour')
                """)
            await rt.maintenance.runOnce()
            #expect(
                try await rt.db.query("SELECT claim_id FROM \(unescaped: rt.schema.deliveries)").map {
                    $0.string("claim_id")
                } == ["delivery_b"])
        }
    }
}
