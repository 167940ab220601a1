import Contracts
import ExpoPush
import Foundation
import HTTPClient
import HTTPServer
import Kafka
import Postgres
import PushAdapters
import Runtime
import Synchronization
import TestSupport
import UpstreamFakes

/// The test stack's Postgres, Redis and broker (started by the test command).
enum Stack {
    static func postgresURL() throws -> String { try TestEnvironment.require("POSTGRES_URL") }
    static func redisURL() throws -> String { try TestEnvironment.require("REDIS_URL") }
    static func kafka() throws -> KafkaConfiguration {
        KafkaConfiguration(brokers: try TestEnvironment.require("KAFKA_BROKERS"), isDevelopment: true)
    }

    /// A fresh owner schema name (a plain identifier).
    static func schemaName(_ prefix: String) -> String {
        "pt_\(prefix)_\(Hex.random(bytes: 5))"
    }

    /// A pool for assertions and direct SQL.
    static func pool(size: Int = 4) async throws -> PostgresPool {
        try await PostgresPool.make(url: postgresURL(), size: size, logger: Logger(label: "push-tests", level: .error))
    }

    /// The environment of an in-process replica: dev profile, no pace, the fake Expo, short retries.
    static func environment(schema: String, expo: String, extra: [String: String] = [:]) throws -> [String: String] {
        var env = [
            "MAPVEST_ENV": "dev", "POSTGRES_URL": try postgresURL(), "REDIS_URL": try redisURL(), "PUSH_SCHEMA": schema,
            "EXPO_BASE_URL": expo, "EXPO_PACE_PER_SECOND": "0", "EXPO_RETRY_BASE_MS": "5", "EXPO_TIMEOUT_MS": "5000",
            "POSTGRES_POOL_SIZE": "3",
        ]
        for (k, v) in extra { env[k] = v }
        return env
    }

    /// An in-process dispatcher replica with its own pools, logging into `sink`.
    static func runtime(
        schema: String, expo: FakeExpo, extra: [String: String] = [:], sink: LogSink = .memory(),
        onLockHeld: (@Sendable (Duration) -> Void)? = nil, onHeartbeat: PushCommands.Heartbeat? = nil
    ) async throws -> PushRuntime {
        let configuration = PushConfiguration(
            Environment(try environment(schema: schema, expo: expo.baseURL, extra: extra)))
        return try await PushRuntime.make(
            configuration: configuration, logger: Logger(label: "push-tests", level: .debug, sink: sink),
            http: testHTTPClient,
            onLockHeld: onLockHeld, onHeartbeat: onHeartbeat)
    }

    static func dropSchema(_ schema: String) async {
        guard let pool = try? await pool(size: 1) else { return }
        try? await pool.withConnection { try await $0.simpleQuery("DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE") }
        await pool.close()
    }
}

/// Random lower-case hex.
enum Hex {
    static func random(bytes: Int) -> String {
        (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }
}

/// Random test identities.
enum Make {
    static func expoToken() -> String { "ExponentPushToken[\(Hex.random(bytes: 11))]" }
    static func user() -> String { "usr_\(Hex.random(bytes: 16))" }
}

/// One message as the fake Expo received it.
struct SentMessage: Sendable {
    var to: String
    var title: String
    var body: String
    var categoryId: String
    var ttl: Int
    var sound: String
    var priority: String
    var data: [String: JSONValue]

    var envelope: [String: JSONValue] {
        if case .object(let e)? = data["mapvest"] { return e }
        return [:]
    }
    func envelopeString(_ key: String) -> String? {
        if case .string(let s)? = envelope[key] { return s }
        return nil
    }
    var installationId: String? { envelopeString("installationId") }
    var deliveryId: String? { envelopeString("deliveryId") }
    func dataString(_ key: String) -> String? {
        if case .string(let s)? = data[key] { return s }
        return nil
    }
}

/// A loopback Expo: records every message of every send request (in arrival order) and answers through `behavior`
/// (default: every ticket ok, with an id). Receipts are answered from `receipts`.
final class FakeExpo: Sendable {
    typealias Behavior = @Sendable (_ messages: [SentMessage], _ attempt: Int) async -> HTTPResponse

    private struct Decoded: Decodable {
        var to: String
        var title: String
        var body: String
        var categoryId: String
        var ttl: Int
        var sound: String
        var priority: String
        var data: [String: JSONValue]
    }

    let upstream: FakeUpstream
    private let state: State

    private final class State: Sendable {
        let sent = Mutex<[SentMessage]>([])
        let sendRequests = Mutex<Int>(0)
        /// Boxed: a closure held directly in a `Mutex` gains reabstraction thunks on every `withLock` write-back.
        let behavior: Mutex<BehaviorBox>
        let receipts = Mutex<[String: String]>([:])
        let receiptCalls = Mutex<[[String]]>([])
        let ticketCounter = Atomic<Int>(0)
        init(_ behavior: @escaping Behavior) { self.behavior = Mutex(BehaviorBox(behavior)) }
    }

    private final class BehaviorBox: Sendable {
        let answer: Behavior
        init(_ answer: @escaping Behavior) { self.answer = answer }
    }

    init(_ behavior: @escaping Behavior = FakeExpo.ok) throws {
        let state = State(behavior)
        self.state = state
        upstream = try FakeUpstream { request in
            if request.path == "/--/api/v2/push/getReceipts" {
                struct Ids: Decodable { var ids: [String] }
                let ids = (try? JSONDecoder().decode(Ids.self, from: Data(request.body)).ids) ?? []
                state.receiptCalls.withLock { $0.append(ids) }
                let known = state.receipts.withLock { $0 }
                var data: [String: JSONValue] = [:]
                for id in ids {
                    switch known[id] {
                    case "ok"?: data[id] = .object(["status": .string("ok")])
                    case let error?:
                        data[id] = .object([
                            "status": .string("error"), "message": .string("x"),
                            "details": .object(["error": .string(error)]),
                        ])
                    case nil: break
                    }
                }
                return .json(200, JSONValue.object(["data": .object(data)]))
            }
            guard request.path == "/--/api/v2/push/send",
                let decoded = try? JSONDecoder().decode([Decoded].self, from: Data(request.body))
            else { return .error(400, "bad request") }
            let messages = decoded.map {
                SentMessage(
                    to: $0.to, title: $0.title, body: $0.body, categoryId: $0.categoryId, ttl: $0.ttl, sound: $0.sound,
                    priority: $0.priority, data: $0.data)
            }
            let attempt = state.sendRequests.withLock { n -> Int in
                n += 1
                return n
            }
            let behavior = state.behavior.withLock { $0 }
            let response = await behavior.answer(messages, attempt)
            if response.status == 200 { state.sent.withLock { $0 += messages } }
            return response
        }
    }

    var baseURL: String { upstream.baseURL }
    /// Messages of send requests answered 200, in order.
    var sent: [SentMessage] { state.sent.withLock { $0 } }
    var sendRequests: Int { state.sendRequests.withLock { $0 } }
    var receiptCalls: [[String]] { state.receiptCalls.withLock { $0 } }
    func respond(_ behavior: @escaping Behavior) { state.behavior.withLock { $0 = BehaviorBox(behavior) } }
    func setReceipt(_ ticket: String, _ status: String) { state.receipts.withLock { $0[ticket] = status } }
    func reset() {
        state.sent.withLock { $0 = [] }
        state.sendRequests.withLock { $0 = 0 }
    }
    func shutdown() async { await upstream.shutdown() }

    /// Every ticket ok with a fresh id `ticket-<n>`.
    static let ok: Behavior = { messages, _ in tickets(messages.map { _ in .object(["status": .string("ok")]) }) }

    /// A 200 answer with these tickets; ok tickets without an id get `ticket-<uuid>`.
    static func tickets(_ tickets: [JSONValue]) -> HTTPResponse {
        let withIds = tickets.map { ticket -> JSONValue in
            guard case .object(var o) = ticket, o["status"] == .string("ok"), o["id"] == nil else { return ticket }
            o["id"] = .string("ticket-\(UUID().uuidString.lowercased())")
            return .object(o)
        }
        return .json(200, JSONValue.object(["data": .array(withIds)]))
    }

    static let deviceNotRegistered: JSONValue = .object([
        "status": .string("error"), "message": .string("not registered"),
        "details": .object(["error": .string("DeviceNotRegistered")]),
    ])
}

/// Polls `condition` until it holds or `timeout` passes.
func eventually(timeout: Duration = .seconds(15), _ condition: @Sendable () async throws -> Bool) async rethrows -> Bool
{
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

/// A request for `users` with one dedupe item.
func pushRequest(
    users: [String], eventKey: PushEventKey? = .identifyDone, tokenId: String? = nil,
    dedupeKey: String = UUID().uuidString,
    title: String = "Found it", body: String = "$SBUX — Starbucks",
    data: [String: JSONValue] = ["kind": .string("identify_done")],
    target: PushTarget = PushTarget(type: "company", fields: ["ticker": .string("SBUX")]), ttl: Int? = nil
) -> PushRequest {
    PushRequest(
        id: UUID().uuidString.lowercased(), userIds: users, tokenId: tokenId, eventKey: eventKey, title: title,
        body: body,
        data: data, target: target, dedupe: [PushDedupe(slot: eventKey?.rawValue ?? "test", key: dedupeKey)],
        ttlSeconds: ttl)
}

extension PushStore {
    /// Registers and opts the installation into `keys` (and the product switch).
    @discardableResult
    func registerEnabled(_ user: String, _ token: String, keys: [PushEventKey] = [.identifyDone]) async throws -> String
    {
        let registration = try await register(userId: user, expoToken: token, platform: "ios", deviceId: nil)
        var patch: [String: JSONValue] = ["notifications_enabled": .bool(true)]
        for key in keys { patch[key.rawValue] = .bool(true) }
        _ = try await writePrefs(userId: user, tokenId: registration.id, patch: patch)
        return registration.id
    }
}

/// Rows counted by a query (first column).
func count(_ pool: PostgresPool, _ query: PostgresQuery) async throws -> Int {
    try await pool.query(query).first.flatMap { $0.int($0.columnNames.first ?? "") } ?? 0
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A mutex-guarded value that closures can share.
final class Locked<T: Sendable>: Sendable {
    let value: Mutex<T>
    init(_ initial: T) { value = Mutex(initial) }
}

/// Runs `body`, then `cleanup` whether it threw or not (async cleanup that `defer` cannot await).
func withCleanup<T>(_ body: () async throws -> T, cleanup: () async -> Void) async throws -> T {
    do {
        let value = try await body()
        await cleanup()
        return value
    } catch {
        await cleanup()
        throw error
    }
}
