import Contracts
import Foundation
import Kafka
import Messaging
import Postgres
import PushAdapters
import Runtime
import Synchronization
import Testing

/// The route semantics (docs/COMPATIBILITY.md#push-semantics) at the PushDispatcher's command boundary, against real
/// Postgres.
@Suite struct PushCommandTests {
    struct Answer {
        let status: Int
        let json: [String: JSONValue]
        var prefs: [String: JSONValue] {
            if case .object(let p)? = json["prefs"] { return p }
            return [:]
        }
        func string(_ key: String) -> String? {
            if case .string(let s)? = json[key] { return s }
            return nil
        }
    }

    static func send<C: Encodable>(_ commands: PushCommands, _ name: String, _ body: C) async throws -> Answer {
        let bytes = Array(try JSONEncoder().encode(body))
        let command = IncomingCommand(
            name: name, body: bytes, key: nil, correlationId: nil, requestId: nil, deadline: .now + .seconds(5),
            message: KafkaMessage(topic: "t", partition: 0, offset: 0, key: nil, value: bytes, headers: []))
        let reply = try await commands.handle(command)
        // The command runner runs after-reply work once the reply is out; so does this helper.
        try await reply.afterReply?()
        var json: [String: JSONValue] = [:]
        if !reply.body.isEmpty, case .object(let o) = try JSONDecoder().decode(JSONValue.self, from: Data(reply.body)) {
            json = o
        }
        return Answer(status: reply.status, json: json)
    }

    /// A runtime on a fresh schema, dropped afterwards.
    static func withRuntime(
        onHeartbeat: PushCommands.Heartbeat? = nil, extra: [String: String] = [:],
        _ body: (PushRuntime) async throws -> Void
    ) async throws {
        let expo = try FakeExpo()
        let schema = Stack.schemaName("cmd")
        var extra = extra
        extra["ENABLE_PUSH_SCHEDULER"] = "1"
        let runtime = try await Stack.runtime(schema: schema, expo: expo, extra: extra, onHeartbeat: onHeartbeat)
        do {
            try await body(runtime)
        } catch {
            await runtime.close()
            await expo.shutdown()
            await Stack.dropSchema(schema)
            throw error
        }
        await runtime.close()
        await expo.shutdown()
        await Stack.dropSchema(schema)
    }

    static let allFalse: [String: JSONValue] = PushWire.mutedFlags

    @Test func registerIsIdempotentForTheSameAccountAndTransfersWithConsentReset() async throws {
        try await Self.withRuntime { rt in
            let c = rt.commands
            let (alice, bob, token) = (Make.user(), Make.user(), Make.expoToken())
            let first = try await Self.send(
                c, PushRegisterCommand.name,
                PushRegisterCommand(userId: alice, token: "  \(token) ", platform: "ios", deviceId: "d1"))
            #expect(first.status == 200)
            let aliceId = try #require(first.string("id"))
            #expect(aliceId.hasPrefix("push_") && aliceId.count == 37)
            #expect(first.prefs == Self.allFalse)

            // Opt in, then re-register: same id, prefs kept.
            let patch: [String: JSONValue] = [
                "notifications_enabled": .bool(true), "daily_brief": .bool(true), "last_lat": .number(40.7),
                "last_lng": .number(-74),
            ]
            #expect(
                try await Self.send(
                    c, PushPrefsWriteCommand.name, PushPrefsWriteCommand(userId: alice, tokenId: aliceId, patch: patch)
                ).status == 200)
            let again = try await Self.send(
                c, PushRegisterCommand.name,
                PushRegisterCommand(userId: alice, token: token, platform: "ios", deviceId: nil))
            #expect(again.string("id") == aliceId)
            #expect(again.prefs["daily_brief"] == .bool(true))
            #expect(
                try await rt.db.query("SELECT device_id FROM \(unescaped: rt.schema.tokens) WHERE id = \(aliceId)")
                    .first?.string("device_id") == "d1")

            // A live delivery claim for the token is dropped by the transfer.
            try await rt.db.execute(
                """
                INSERT INTO \(unescaped: rt.schema.deliveries) (claim_id, delivery_group, token_id, user_id, expo_token, dedupe_slot, dedupe_key, lease_until)
                VALUES ('delivery_x', 'delivery_g', \(aliceId), \(alice), \(token), 's', 'k', now() + interval '1 hour')
                """)
            let transfer = try await Self.send(
                c, PushRegisterCommand.name,
                PushRegisterCommand(userId: bob, token: token, platform: "android", deviceId: nil))
            let bobId = try #require(transfer.string("id"))
            #expect(bobId != aliceId)
            #expect(transfer.prefs == Self.allFalse)  // no consent, location or scheduler state carried over
            #expect(
                try await count(
                    rt.db, "SELECT count(*) FROM \(unescaped: rt.schema.deliveries) WHERE expo_token = \(token)") == 0)
            // Alice's old row stays (no mass deletion) but is muted and no longer hers to read or write.
            let old = try #require(
                try await rt.db.query("SELECT prefs FROM \(unescaped: rt.schema.tokens) WHERE id = \(aliceId)").first?
                    .string("prefs"))
            #expect(old.contains("\"daily_brief\": false") && old.contains("\"notifications_enabled\": false"))
            #expect(
                try await Self.send(c, PushPrefsReadCommand.name, PushPrefsReadCommand(userId: alice, tokenId: aliceId))
                    .json == ["prefs": .object([:]), "tokenId": .null])
            #expect(
                try await Self.send(
                    c, PushPrefsWriteCommand.name,
                    PushPrefsWriteCommand(userId: alice, tokenId: aliceId, patch: ["daily_brief": .bool(true)])
                ).status == 404)

            // Back to Alice: her legacy row is reused, muted again, only its own last_sent survives.
            try await rt.db.execute(
                """
                UPDATE \(unescaped: rt.schema.tokens) SET prefs = prefs || '{"last_sent":{"daily_brief":"20260101"}}'::jsonb WHERE id = \(aliceId)
                """)
            let back = try await Self.send(
                c, PushRegisterCommand.name,
                PushRegisterCommand(userId: alice, token: token, platform: "ios", deviceId: nil))
            #expect(back.string("id") == aliceId)
            var expected = Self.allFalse
            expected["last_sent"] = .object(["daily_brief": .string("20260101")])
            #expect(back.prefs == expected)
            #expect(
                try await count(
                    rt.db, "SELECT count(*) FROM \(unescaped: rt.schema.tokens) WHERE expo_token = \(token)") == 2)

            #expect(
                try await Self.send(
                    c, PushRegisterCommand.name,
                    PushRegisterCommand(userId: alice, token: "ExponentPushToken[]", platform: "ios", deviceId: nil)
                ).status == 400)
        }
    }

    @Test func prefsWriteFiltersThePatchAndReportsHeartbeats() async throws {
        let beats = Mutex<[String]>([])
        try await Self.withRuntime(onHeartbeat: { id, _, _ in beats.withLock { $0.append(id) } }) { rt in
            let c = rt.commands
            let (user, token) = (Make.user(), Make.expoToken())
            let id = try #require(
                try await Self.send(
                    c, PushRegisterCommand.name,
                    PushRegisterCommand(userId: user, token: token, platform: "ios", deviceId: nil)
                ).string("id"))
            let written = try await Self.send(
                c, PushPrefsWriteCommand.name,
                PushPrefsWriteCommand(
                    userId: user, tokenId: id,
                    patch: [
                        "notifications_enabled": .bool(true), "find_evolution": .bool(true),
                        "future_key": .string("kept out"),
                        "last_sent": .object(["daily_brief": .string("forged")]), "last_lat": .number(1.5),
                        "last_lng": .number(2.5),
                        "last_location_at": .string("2026-01-01T00:00:00.000Z"),
                    ]))
            #expect(written.status == 200)
            #expect(written.prefs["find_evolution"] == .bool(true))
            #expect(written.prefs["last_lat"] == .number(1.5))
            #expect(written.prefs["future_key"] == nil)
            #expect(written.prefs["last_sent"] == nil)
            #expect(await eventually(timeout: .seconds(2)) { beats.withLock { $0 } == [id] })

            // A known key with the wrong type is rejected, as the original schema does.
            #expect(
                try await Self.send(
                    c, PushPrefsWriteCommand.name,
                    PushPrefsWriteCommand(userId: user, tokenId: id, patch: ["daily_brief": .string("yes")])
                ).status == 400)
            #expect(
                try await Self.send(
                    c, PushPrefsWriteCommand.name,
                    PushPrefsWriteCommand(userId: user, tokenId: "push_stale", patch: ["daily_brief": .bool(true)])
                ).status == 404)
            // Shallow merge keeps earlier keys.
            let second = try await Self.send(
                c, PushPrefsWriteCommand.name,
                PushPrefsWriteCommand(userId: user, tokenId: id, patch: ["daily_brief": .bool(true)]))
            #expect(second.prefs["find_evolution"] == .bool(true) && second.prefs["daily_brief"] == .bool(true))
            #expect(beats.withLock { $0.count } == 1)
        }
    }

    @Test func prefsReadNeedsTheExactActiveIdAndNeverPicksASibling() async throws {
        try await Self.withRuntime { rt in
            let c = rt.commands
            let user = Make.user()
            let phone = try await rt.store.registerEnabled(user, Make.expoToken(), keys: [.dailyBrief])
            let tablet = try await rt.store.registerEnabled(user, Make.expoToken(), keys: [.priceAlerts])
            let read = try await Self.send(
                c, PushPrefsReadCommand.name, PushPrefsReadCommand(userId: user, tokenId: tablet))
            #expect(read.status == 200 && read.string("tokenId") == tablet)
            #expect(read.prefs["price_alerts"] == .bool(true) && read.prefs["daily_brief"] == .bool(false))
            let empty: [String: JSONValue] = ["prefs": .object([:]), "tokenId": .null]
            #expect(
                try await Self.send(
                    c, PushPrefsReadCommand.name,
                    PushPrefsReadCommand(userId: user, tokenId: "push_\(Hex.random(bytes: 16))")
                ).json == empty)
            #expect(
                try await Self.send(
                    c, PushPrefsReadCommand.name, PushPrefsReadCommand(userId: Make.user(), tokenId: phone)
                ).json == empty)
            #expect(
                try await Self.send(
                    c, PushPrefsReadCommand.name,
                    PushPrefsReadCommand(userId: user, tokenId: String(repeating: "x", count: 129))
                ).status == 400)
        }
    }

    @Test func deleteTokenUnlinksOnlyTheCallersActiveClaim() async throws {
        try await Self.withRuntime { rt in
            let c = rt.commands
            let (user, token) = (Make.user(), Make.expoToken())
            let id = try await rt.store.registerEnabled(user, token)
            #expect(
                try await Self.send(
                    c, PushDeleteTokenCommand.name, PushDeleteTokenCommand(userId: Make.user(), tokenId: id)
                ).status == 404)
            let deleted = try await Self.send(
                c, PushDeleteTokenCommand.name, PushDeleteTokenCommand(userId: user, tokenId: id))
            #expect(deleted.status == 204 && deleted.json.isEmpty)
            let claim = try #require(
                try await rt.db.query(
                    "SELECT token_id, user_id FROM \(unescaped: rt.schema.claims) WHERE expo_token = \(token)"
                ).first)
            #expect(claim.isNull("token_id") && claim.isNull("user_id"))  // tombstone
            #expect(
                try await Self.send(c, PushDeleteTokenCommand.name, PushDeleteTokenCommand(userId: user, tokenId: id))
                    .status == 404)
        }
    }

    @Test func revocationOutcomesIncludingClaimMismatch() async throws {
        try await Self.withRuntime { rt in
            let c = rt.commands
            let (alice, bob, token) = (Make.user(), Make.user(), Make.expoToken())
            let aliceId = try await rt.store.registerEnabled(alice, token)
            let revoked: [String: JSONValue] = [
                "revoked": .bool(true), "matched": .bool(true), "outcome": .string("revoked"),
            ]
            let already: [String: JSONValue] = [
                "revoked": .bool(true), "matched": .bool(false), "outcome": .string("already-revoked"),
            ]
            let mismatch: [String: JSONValue] = [
                "revoked": .bool(false), "matched": .bool(false), "outcome": .string("claim-mismatch"),
            ]

            // Public revoke: wrong id → 409, right id → revoked, again → already-revoked, unknown token → already-revoked.
            let wrong = try await Self.send(
                c, PushRevokeDeviceCommand.name,
                PushRevokeDeviceCommand(token: token, tokenId: "push_other", deviceId: nil))
            #expect(wrong.status == 409 && wrong.json == mismatch)
            let ok = try await Self.send(
                c, PushRevokeDeviceCommand.name, PushRevokeDeviceCommand(token: token, tokenId: aliceId, deviceId: "d"))
            #expect(ok.status == 200 && ok.json == revoked)
            #expect(
                try await Self.send(
                    c, PushRevokeDeviceCommand.name,
                    PushRevokeDeviceCommand(token: token, tokenId: aliceId, deviceId: nil)
                ).json == already)
            #expect(
                try await Self.send(
                    c, PushRevokeDeviceCommand.name,
                    PushRevokeDeviceCommand(token: Make.expoToken(), tokenId: aliceId, deviceId: nil)
                ).json == already)

            // Alice's old id after Bob claimed the token: fail closed.
            let alice2 = try await rt.store.registerEnabled(alice, token)
            let bobId = try await rt.store.registerEnabled(bob, token)
            let stale = try await Self.send(
                c, PushRevokeDeviceCommand.name, PushRevokeDeviceCommand(token: token, tokenId: alice2, deviceId: nil))
            #expect(stale.status == 409 && stale.json == mismatch)

            // Current device: only the caller's own claim.
            let notHers = try await Self.send(
                c, PushRevokeCurrentDeviceCommand.name,
                PushRevokeCurrentDeviceCommand(userId: alice, token: token, deviceId: nil))
            #expect(notHers.status == 409 && notHers.json == mismatch)
            #expect(
                try await Self.send(
                    c, PushRevokeCurrentDeviceCommand.name,
                    PushRevokeCurrentDeviceCommand(userId: bob, token: token, deviceId: nil)
                ).json == revoked)
            #expect(
                try await Self.send(
                    c, PushRevokeCurrentDeviceCommand.name,
                    PushRevokeCurrentDeviceCommand(userId: bob, token: token, deviceId: nil)
                ).json == already)
            #expect(try await rt.store.readPrefs(userId: bob, tokenId: bobId) == nil)
            #expect(
                try await Self.send(
                    c, PushRevokeDeviceCommand.name, PushRevokeDeviceCommand(token: "nope", tokenId: "x", deviceId: nil)
                ).status == 400)
        }
    }

    @Test func expiredSessionRevocationRules() async throws {
        try await Self.withRuntime { rt in
            let c = rt.commands
            let (alice, bob, token) = (Make.user(), Make.user(), Make.expoToken())
            func revoke(_ subject: String, token: String?, tokenId: String?) async throws -> Answer {
                try await Self.send(
                    c, PushRevokeExpiredSessionDeviceCommand.name,
                    PushRevokeExpiredSessionDeviceCommand(
                        subject: subject, token: token, tokenId: tokenId, deviceId: nil))
            }
            let aliceId = try await rt.store.registerEnabled(alice, token)
            // Expo token only: the subject's own claim.
            #expect(try await revoke(bob, token: token, tokenId: nil).status == 409)
            #expect(try await revoke(alice, token: token, tokenId: nil).string("outcome") == "revoked")
            #expect(try await revoke(alice, token: token, tokenId: nil).string("outcome") == "already-revoked")

            // By opaque id: row missing → already-revoked; another user's row → mismatch; other token → mismatch.
            #expect(try await revoke(alice, token: nil, tokenId: aliceId).string("outcome") == "already-revoked")
            let alice2 = try await rt.store.registerEnabled(alice, token)
            #expect(try await revoke(bob, token: nil, tokenId: alice2).status == 409)
            #expect(try await revoke(alice, token: Make.expoToken(), tokenId: alice2).status == 409)
            // The physical token moved to Bob: Alice's historical id fails closed.
            _ = try await rt.store.registerEnabled(bob, token)
            #expect(try await revoke(alice, token: nil, tokenId: alice2).status == 409)
            #expect(try await revoke(alice, token: token, tokenId: alice2).status == 409)
            // Tombstoned claim → already-revoked.
            #expect(try await revoke(bob, token: token, tokenId: nil).string("outcome") == "revoked")
            #expect(try await revoke(alice, token: nil, tokenId: alice2).string("outcome") == "already-revoked")
            // Exact id of the active claim → revoked.
            let alice3 = try await rt.store.registerEnabled(alice, token)
            #expect(alice3 == alice2)  // her legacy row, reused
            #expect(try await revoke(alice, token: nil, tokenId: alice3).string("outcome") == "revoked")
            #expect(try await revoke(alice, token: nil, tokenId: nil).status == 400)
        }
    }

    @Test func unknownCommandsAreUndecodable() async throws {
        try await Self.withRuntime { rt in
            await #expect(throws: CommandDecodingError.self) {
                _ = try await Self.send(rt.commands, "push.nope.v1", ["a": 1])
            }
            await #expect(throws: CommandDecodingError.self) {
                _ = try await Self.send(rt.commands, PushRegisterCommand.name, ["a": 1])
            }
        }
    }
}
