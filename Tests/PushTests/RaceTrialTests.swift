import Contracts
import Foundation
import HTTPServer
import Postgres
import PushAdapters
import PushCore
import Runtime
import Synchronization
import Testing

/// Account isolation under concurrency (docs/COMPATIBILITY.md#push-locks, #push-delivery): three dispatcher replicas
/// deliver the same request while registrations move the tokens between accounts, unlinks and revocations run and
/// preferences flip.
///
/// The fake Expo reads the claim table and the consent of every message's token at the moment it receives the
/// handoff (the dispatcher still holds the token's advisory lock then, so that is the state at handoff time) and
/// records a violation when the active claim is not the addressed installation of the same account, or consent is off.
@Suite struct RaceTrialTests {
    static let lanes = 6
    static let trialsPerLane = 170  // 1,020 trials

    final class Ledger: Sendable {
        let violations = Mutex<[String]>([])
        let handoffs = Mutex<[String: Int]>([:])
        let errors = Mutex<[String]>([])
        let tokens = Mutex<[String]>([])
        let transfers = Atomic<Int>(0)
        func violation(_ text: String) { violations.withLock { $0.append(text) } }
        func error(_ text: String) { errors.withLock { $0.append(text) } }
    }

    @Test func thousandRandomizedTrialsWithThreeReplicas() async throws {
        let schema = Stack.schemaName("race")
        let ledger = Ledger()
        let checker = try await Stack.pool(size: 6)
        let names = try PushSchema(name: schema)
        let expo = try FakeExpo { messages, _ in
            let tokens = messages.map(\.to)
            let rows: [PostgresRow]
            do {
                rows = try await checker.query(
                    """
                    SELECT c.expo_token, c.token_id, c.user_id, p.id AS row_id,
                           p.prefs->>'notifications_enabled' AS enabled, p.prefs->>'identify_done' AS opted
                      FROM \(unescaped: names.claims) c
                      LEFT JOIN \(unescaped: names.tokens) p ON p.id = c.token_id AND p.user_id = c.user_id AND p.expo_token = c.expo_token
                     WHERE c.expo_token = ANY(\(tokens)::text[])
                    """)
            } catch {
                ledger.error("checker: \(error)")
                return .error(500, "checker failed")
            }
            var claims: [String: PostgresRow] = [:]
            for row in rows { if let t = row.string("expo_token") { claims[t] = row } }
            for message in messages {
                let installation = message.installationId ?? "?"
                guard let claim = claims[message.to], claim.string("token_id") == installation,
                    claim.string("row_id") == installation
                else {
                    ledger.violation("handoff to a token whose active claim is another installation/account")
                    continue
                }
                if claim.string("enabled") == "false" || claim.string("opted") != "true" {
                    ledger.violation("handoff without consent at handoff time")
                }
                let key = "\(message.dataString("trial") ?? "?")|\(installation)"
                ledger.handoffs.withLock { $0[key, default: 0] += 1 }
            }
            return await FakeExpo.ok(messages, 1)
        }
        var made: [PushRuntime] = []
        for _ in 0..<3 { made.append(try await Stack.runtime(schema: schema, expo: expo)) }
        let replicas = made
        let store = PushStore(db: try await Stack.pool(size: 8), schema: names)
        try await withCleanup(
            {
                try await run(replicas: replicas, store: store, ledger: ledger)
            },
            cleanup: {
                for replica in replicas { await replica.close() }
                await store.db.close()
                await checker.close()
                await expo.shutdown()
                await Stack.dropSchema(schema)
            })
    }

    func run(replicas: [PushRuntime], store: PushStore, ledger: Ledger) async throws {
        let names = store.schema
        let started = ContinuousClock.now
        let dispatchers = replicas.map(\.dispatcher)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<Self.lanes {
                group.addTask {
                    for trial in 0..<Self.trialsPerLane {
                        try await Self.trial(
                            lane: lane, trial: trial, dispatchers: dispatchers, store: store, ledger: ledger)
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = ContinuousClock.now - started

        let violations = ledger.violations.withLock { $0 }
        #expect(violations.count == 0, "first violation: \(violations.first ?? "")")
        let duplicates = ledger.handoffs.withLock { $0.filter { $0.value > 1 } }
        #expect(duplicates.count == 0, "deliveries handed off twice")
        let errors = ledger.errors.withLock { $0 }
        #expect(errors.count == 0, "errors (deadlocks included), first: \(errors.first ?? "")")
        let handed = ledger.handoffs.withLock { $0.count }
        #expect(handed > Self.lanes * Self.trialsPerLane / 4, "too few handoffs to mean anything: \(handed)")
        #expect(ledger.transfers.load(ordering: .relaxed) > 100)
        // Nothing left behind: no delivery claim, no advisory lock on any trial token.
        let tokens = ledger.tokens.withLock { $0 }
        #expect(try await count(store.db, "SELECT count(*) FROM \(unescaped: names.deliveries)") == 0)
        #expect(
            try await count(
                store.db,
                """
                SELECT count(*) FROM pg_locks l, unnest(\(tokens)::text[]) AS t
                 WHERE l.locktype = 'advisory' AND l.objsubid = 1
                   AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended(t, 0)
                """) == 0)
        print(
            "race trials: \(Self.lanes * Self.trialsPerLane) trials, \(handed) handoffs, "
                + "\(ledger.transfers.load(ordering: .relaxed)) transfers in \(elapsed)")
    }

    /// One trial: three users, two physical tokens, a random start, then three replicas delivering one request while
    /// two to five random account operations run.
    static func trial(lane: Int, trial: Int, dispatchers: [PushDispatcher], store: PushStore, ledger: Ledger)
        async throws
    {
        let users = (0..<3).map { _ in Make.user() }
        let tokens = (0..<2).map { _ in Make.expoToken() }
        ledger.tokens.withLock { $0 += tokens }
        let known = Known()
        for token in tokens {
            if let owner = users.randomElement(), Double.random(in: 0..<1) < 0.85 {
                try await register(
                    owner, token, enable: Double.random(in: 0..<1) < 0.8, store: store, ledger: ledger, known: known)
            }
        }
        let tag = "trial-\(lane)-\(trial)"
        let request = pushRequest(
            users: users, eventKey: .identifyDone, dedupeKey: tag,
            data: ["kind": .string("identify_done"), "trial": .string(tag)])

        let finished = await withDeadline(.seconds(30)) {
            await withTaskGroup(of: Void.self) { group in
                for dispatcher in dispatchers {
                    group.addTask {
                        let summary = await dispatcher.deliver(request)
                        if summary.errors > 0 { ledger.error("dispatcher batch errors: \(summary.errors)") }
                    }
                }
                for _ in 0..<Int.random(in: 2...5) {
                    group.addTask {
                        do {
                            try await Self.randomOperation(
                                users: users, tokens: tokens, known: known, store: store, ledger: ledger)
                        } catch {
                            ledger.error("operation: \(error)")
                        }
                    }
                }
            }
            return true
        }
        if finished == nil { ledger.error("trial \(tag) did not finish in 30 s (deadlock?)") }
        let left = try await count(
            store.db,
            "SELECT count(*) FROM \(unescaped: store.schema.deliveries) WHERE expo_token = ANY(\(tokens)::text[])")
        if left != 0 { ledger.error("trial \(tag) left \(left) delivery claims") }
    }

    /// Registrations made in one trial.
    final class Known: Sendable {
        let items = Mutex<[(user: String, token: String, id: String)]>([])
    }

    static func register(
        _ user: String, _ token: String, enable: Bool, store: PushStore, ledger: Ledger, known: Known
    ) async throws {
        let registration = try await store.register(userId: user, expoToken: token, platform: "ios", deviceId: nil)
        if registration.transferred { ledger.transfers.add(1, ordering: .relaxed) }
        known.items.withLock { $0.append((user, token, registration.id)) }
        if enable {
            _ = try await store.writePrefs(
                userId: user, tokenId: registration.id,
                patch: ["notifications_enabled": .bool(true), "identify_done": .bool(true)])
        }
    }

    static func randomOperation(
        users: [String], tokens: [String], known: Known, store: PushStore, ledger: Ledger
    ) async throws {
        guard let user = users.randomElement(), let token = tokens.randomElement() else { return }
        let registration = known.items.withLock { $0.randomElement() }
        switch Int.random(in: 0..<8) {
        case 0, 1, 2:  // a device signs in to another (or the same) account
            try await register(
                user, token, enable: Double.random(in: 0..<1) < 0.6, store: store, ledger: ledger, known: known)
        case 3:  // preference flips on an exact installation
            if let r = registration {
                let key = Bool.random() ? "identify_done" : "notifications_enabled"
                _ = try await store.writePrefs(userId: r.user, tokenId: r.id, patch: [key: .bool(Bool.random())])
            }
        case 4:
            if let r = registration { _ = try await store.deleteToken(userId: r.user, tokenId: r.id) }
        case 5:
            if let r = registration { _ = try await store.revokeDevice(expoToken: r.token, tokenId: r.id) }
        case 6:
            _ = try await store.revokeCurrentDevice(userId: user, expoToken: token)
        default:
            if let r = registration {
                _ = try await store.revokeExpiredSessionDevice(
                    subject: r.user, expoToken: Bool.random() ? r.token : nil, tokenId: r.id)
            } else {
                _ = try await store.revokeExpiredSessionDevice(subject: user, expoToken: token, tokenId: nil)
            }
        }
    }
}
