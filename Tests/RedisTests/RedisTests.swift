import Crypto
import Foundation
import Runtime
import TestSupport
import Testing

@testable import Redis

enum RedisTestSupport {
    static func url() throws -> String { try TestEnvironment.require("REDIS_URL") }

    static func client(
        size: Int = 4, commandTimeout: Duration = .seconds(2), url: String? = nil
    ) async throws -> RedisClient {
        try await RedisClient.make(
            url: url ?? self.url(), size: size, logger: Logger(label: "redis-tests", sink: .memory()),
            commandTimeout: commandTimeout)
    }

    static func key(_ prefix: String) -> String { "test:" + TestEnvironment.uniqueName(prefix) }

    static func elapsed(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}

/// Pure tests: URL parsing, SHA-1, TTL conversion, error text. No server.
@Suite struct RedisUnitTests {
    @Test func parsesURLs() throws {
        let full = try RedisEndpoint(url: "redis://:p%40ss@cache.internal:6380/3")
        #expect(full.host == "cache.internal" && full.port == 6380 && full.database == 3)
        #expect(full.password == "p@ss" && full.username == nil)
        let acl = try RedisEndpoint(url: "redis://worker:pw@10.0.0.5")
        #expect(acl.username == "worker" && acl.password == "pw" && acl.port == 6379 && acl.database == 0)
        #expect(throws: RedisError.self) { try RedisEndpoint(url: "rediss://host:6379") }
        #expect(throws: RedisError.self) { try RedisEndpoint(url: "redis://host/notanumber") }
    }

    @Test func ttlMilliseconds() throws {
        #expect(try RedisClient.milliseconds(.seconds(2)) == 2000)
        #expect(try RedisClient.milliseconds(.microseconds(1500)) == 2)
        #expect(try RedisClient.milliseconds(.nanoseconds(1)) == 1)
        #expect(throws: RedisError.self) { try RedisClient.milliseconds(.zero) }
    }

    @Test func errorTextIsGeneric() {
        let error = RedisError(reply: "WRONGTYPE Operation against a key holding the wrong kind of value")
        #expect(error.description == "RedisError(error reply, WRONGTYPE)")
        #expect(!error.isRetriable)
        #expect(RedisError(reply: "LOADING Redis is loading the dataset in memory").isRetriable)
        #expect(RedisError(reply: "custom failure from user:42").errorPrefix == nil)
    }
}

/// Against the real server at REDIS_URL.
@Suite struct RedisIntegrationTests {
    @Test func getSetDeleteWithBinaryValues() async throws {
        let redis = try await RedisTestSupport.client()
        let key = RedisTestSupport.key("bin")
        let value: [UInt8] = Array(0...255) + Array("\r\n$-1\r\n".utf8)
        #expect(try await redis.get(key) == nil)
        #expect(try await redis.set(key, value))
        #expect(try await redis.get(key) == value)
        #expect(try await redis.set(key, []))
        #expect(try await redis.get(key) == [])
        let binaryKey = String(decoding: [0x6B, 0x00, 0x0A, 0xFF], as: UTF8.self)
        #expect(try await redis.command([Array("SET".utf8), Array(binaryKey.utf8), value]) == .status("OK"))
        #expect(try await redis.command([Array("GET".utf8), Array(binaryKey.utf8)]) == .string(value))
        #expect(try await redis.delete(key, binaryKey, key + ":absent") == 2)
        #expect(try await redis.delete() == 0)
        #expect(try await redis.get(key) == nil)
        #expect(try await redis.command("PING") == .status("PONG"))
        await redis.close()
    }

    @Test func ttlAndOnlyIfAbsent() async throws {
        let redis = try await RedisTestSupport.client()
        let key = RedisTestSupport.key("ttl")
        // Generous TTLs: the whole suite runs in parallel on two cores.
        #expect(try await redis.set(key, Array("a".utf8), ttl: .milliseconds(1500), onlyIfAbsent: true))
        #expect(try await redis.set(key, Array("b".utf8), onlyIfAbsent: true) == false)
        #expect(try await redis.get(key) == Array("a".utf8))
        let pttl = try await redis.command("PTTL", key).integer ?? -1
        #expect(pttl > 0 && pttl <= 1500)
        try await Task.sleep(for: .milliseconds(1700))
        #expect(try await redis.get(key) == nil)
        #expect(try await redis.set(key, Array("c".utf8), onlyIfAbsent: true))
        await #expect(throws: RedisError.self) { try await redis.set(key, [], ttl: .zero) }
        try await redis.delete(key)
        await redis.close()
    }

    @Test func incrAndPexpire() async throws {
        let redis = try await RedisTestSupport.client()
        let key = RedisTestSupport.key("incr")
        #expect(try await redis.pexpire(key, .seconds(1)) == false)
        #expect(try await redis.incr(key) == 1)
        #expect(try await redis.incr(key) == 2)
        #expect(try await redis.pexpire(key, .seconds(5)) == true)
        let ttl = try await redis.command("PTTL", key).integer ?? -1
        #expect(ttl > 4000 && ttl <= 5000)
        try await redis.set(key, Array("not a number".utf8))
        let error = await #expect(throws: RedisError.self) { try await redis.incr(key) }
        #expect(error?.code == .errorReply && error?.errorPrefix == "ERR")
        #expect(error.map { !$0.description.contains(key) } == true)
        let wrongType = await #expect(throws: RedisError.self) { try await redis.command("HSET", key, "f", "v") }
        #expect(wrongType?.errorPrefix == "WRONGTYPE")
        try await redis.delete(key)
        await redis.close()
    }

    @Test func evalUsesScriptCacheAndFallsBack() async throws {
        let redis = try await RedisTestSupport.client(size: 1)
        let key = RedisTestSupport.key("eval")
        let script = "redis.call('SET', KEYS[1], ARGV[1]); return {redis.call('GET', KEYS[1]), #ARGV, 'x'}"
        let loaded = try await redis.command("SCRIPT", "LOAD", script).string
        #expect(loaded == Digest.hex(Digest.sha1(Array(script.utf8))))
        let expected = RedisValue.array([.string(Array("v1".utf8)), .integer(2), .string(Array("x".utf8))])
        #expect(try await redis.eval(script, keys: [key], args: ["v1", "extra"]) == expected)
        // After the server forgets its scripts, EVALSHA answers NOSCRIPT and the client falls back to EVAL.
        _ = try await redis.command("SCRIPT", "FLUSH")
        #expect(try await redis.eval(script, keys: [key], args: ["v1", "extra"]) == expected)
        #expect(try await redis.command("SCRIPT", "EXISTS", loaded ?? "") == .array([.integer(1)]))
        let failing = await #expect(throws: RedisError.self) {
            try await redis.eval("return redis.error_reply('BUSYKEY taken')", keys: [], args: [])
        }
        #expect(failing?.errorPrefix == "BUSYKEY")
        try await redis.delete(key)
        await redis.close()
    }

    @Test func fixedWindowCountsAndResets() async throws {
        let redis = try await RedisTestSupport.client()
        let key = RedisTestSupport.key("window")
        var counts: [Int64] = []
        var firstReset: Int64 = 0
        // A window long enough that a loaded box (the whole suite runs in parallel) cannot cross it mid-loop.
        for _ in 0..<3 {
            let hit = try await redis.fixedWindowHit(key: key, window: .milliseconds(1500))
            counts.append(hit.count)
            if firstReset == 0 { firstReset = hit.resetInMs }
            #expect(hit.resetInMs > 0 && hit.resetInMs <= 1500)
        }
        #expect(counts == [1, 2, 3])
        try await Task.sleep(for: .milliseconds(Int64(firstReset) + 50))
        let next = try await redis.fixedWindowHit(key: key, window: .milliseconds(1500))
        #expect(next.count == 1)
        #expect(next.resetInMs > 1000)
        // A counter that lost its TTL gets one again instead of counting forever.
        try await redis.delete(key)
        _ = try await redis.incr(key)
        _ = try await redis.incr(key)
        let healed = try await redis.fixedWindowHit(key: key, window: .seconds(10))
        #expect(healed.count == 3 && healed.resetInMs > 9000)
        try await redis.delete(key)
        await redis.close()
    }

    @Test func poolSharesConnectionsAcrossManyTasks() async throws {
        let redis = try await RedisTestSupport.client(size: 3)
        let key = RedisTestSupport.key("concurrent")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<60 { group.addTask { _ = try await redis.incr(key) } }
            try await group.waitForAll()
        }
        #expect(try await redis.get(key) == Array("60".utf8))
        let clients = try await redis.command("CLIENT", "LIST").string ?? ""
        #expect(!clients.isEmpty)
        try await redis.delete(key)
        await redis.close()
    }

    @Test func selectsDatabaseAndAuthenticates() async throws {
        let base = try #require(URLComponents(string: try RedisTestSupport.url()))
        func url(user: String? = nil, password: String? = nil, db: Int? = nil) -> String {
            var c = base
            if let user { c.user = user }
            if let password { c.password = password }
            if let db { c.path = "/\(db)" }
            return c.string ?? ""
        }
        let admin = try await RedisTestSupport.client(size: 1)
        let key = RedisTestSupport.key("db")
        let db5 = try await RedisTestSupport.client(size: 1, url: url(db: 5))
        try await db5.set(key, Array("five".utf8))
        #expect(try await admin.get(key) == nil)
        #expect(try await db5.get(key) == Array("five".utf8))
        try await db5.delete(key)
        await db5.close()

        let user = TestEnvironment.uniqueName("user")
        _ = try await admin.command("ACL", "SETUSER", user, "on", ">right-password", "~*", "+@all")
        let authed = try await RedisTestSupport.client(size: 1, url: url(user: user, password: "right-password"))
        #expect(try await authed.command("ACL", "WHOAMI") == .string(Array(user.utf8)))
        await authed.close()
        let wrong = try await RedisTestSupport.client(size: 1, url: url(user: user, password: "wrong-password"))
        let error = await #expect(throws: RedisError.self) { try await wrong.command("PING") }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.isRetriable == false)
        #expect(error.map { !"\($0)".contains("wrong-password") } == true)
        await wrong.close()
        _ = try await admin.command("ACL", "DELUSER", user)
        await admin.close()
    }

    @Test func commandTimeoutDiscardsTheConnection() async throws {
        let redis = try await RedisTestSupport.client(size: 1, commandTimeout: .milliseconds(200))
        let key = RedisTestSupport.key("blocked")
        let start = ContinuousClock.now
        let error = await #expect(throws: RedisError.self) { try await redis.command("BLPOP", key, "2") }
        #expect(RedisTestSupport.elapsed(since: start) < 1.8)  // 200 ms timeout, well before BLPOP's 2 s
        #expect(error?.code == .timeout)
        #expect(error?.isRetriable == true)
        // The late reply cannot confuse the next caller: the timed-out connection was replaced.
        try await redis.set(key + ":x", Array("ok".utf8))
        #expect(try await redis.get(key + ":x") == Array("ok".utf8))
        try await redis.delete(key + ":x")
        await redis.close()
    }

    @Test func droppedConnectionIsReplaced() async throws {
        let redis = try await RedisTestSupport.client(size: 1)
        let admin = try await RedisTestSupport.client(size: 1)
        let id = try #require(try await redis.command("CLIENT", "ID").integer)
        _ = try await admin.command("CLIENT", "KILL", "ID", String(id))
        try await Task.sleep(for: .milliseconds(50))
        let newID = try await redis.command("CLIENT", "ID").integer
        #expect(newID != nil && newID != id)
        await redis.close()
        await admin.close()
    }

    @Test func unreachableServerFailsFast() async throws {
        let redis = try await RedisTestSupport.client(size: 2, url: "redis://:secret@127.0.0.1:1")
        let start = ContinuousClock.now
        let error = await #expect(throws: RedisError.self) { try await redis.get("anything") }
        #expect(RedisTestSupport.elapsed(since: start) < 3)
        #expect(error?.code == .connectionFailed)
        #expect(error?.isRetriable == true)
        await redis.close()
        let closed = await #expect(throws: RedisError.self) { try await redis.get("anything") }
        #expect(closed?.code == .poolClosed)
    }
}
