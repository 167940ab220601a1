import Crypto
import Foundation
import Runtime
import Synchronization
import Tracing

/// A Redis client over a pool of hiredis connections. Each connection serves one caller at a time and runs its
/// blocking calls on its own serial queue; every call is bounded by `commandTimeout` (connect included).
/// Top-level error replies are thrown as `RedisError` (`.errorReply`). Creating a client ignores SIGPIPE for the
/// process (hiredis writes with `write(2)`, which would otherwise kill the process when Redis drops a connection).
public final class RedisClient: Sendable {
    private let pool: ConnectionPool<RedisConnection>
    private let scripts = Mutex<[String: String]>([:])  // script text → SHA-1 hex

    private static let commandsTotal = MetricsRegistry.shared.counter(
        "redis_commands_total", help: "Redis commands sent by clients.")
    private static let errorsTotal = MetricsRegistry.shared.counter(
        "redis_errors_total", help: "Redis commands that failed (connection, timeout or error reply).")
    private static let inUse = MetricsRegistry.shared.gauge(
        "redis_pool_in_use", help: "Redis connections currently handed out by clients.")

    private static let fixedWindowScript = """
        local count = redis.call('INCR', KEYS[1])
        if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
        local ttl = redis.call('PTTL', KEYS[1])
        if ttl < 0 then
            redis.call('PEXPIRE', KEYS[1], ARGV[1])
            ttl = tonumber(ARGV[1])
        end
        return {count, ttl}
        """

    private init(pool: ConnectionPool<RedisConnection>) {
        self.pool = pool
    }

    /// A client for `url`: `redis://[[user]:password@]host[:port][/db]` (AUTH and SELECT run on connect; no TLS).
    /// The URL is checked here; connections open lazily up to `size`. Callers wait FIFO for a free connection up to
    /// `acquireTimeout`.
    public static func make(
        url: String, size: Int, logger: Logger, commandTimeout: Duration = .seconds(2),
        acquireTimeout: Duration = .seconds(2)
    ) async throws -> RedisClient {
        guard size >= 1 else { throw RedisError(code: .invalidArgument, message: "pool size must be at least 1") }
        let endpoint = try RedisEndpoint(url: url)
        signal(SIGPIPE, SIG_IGN)
        let logger = logger.with([LogKeys.component: "redis"])
        let hooks = ConnectionPool<RedisConnection>.Hooks(
            open: {
                do {
                    return try await RedisConnection.make(endpoint, timeout: commandTimeout)
                } catch {
                    logger.warning("redis connect failed", [LogKeys.error: .string("\(error)")])
                    throw error
                }
            },
            isUsable: { $0.isUsableWhenIdle() },
            close: { await $0.close() },
            timeoutError: { RedisError(code: .poolTimeout, message: "no connection free within \(acquireTimeout)") },
            closedError: { RedisError(code: .poolClosed) })
        let pool = ConnectionPool(capacity: size, acquireTimeout: acquireTimeout, inUse: inUse, hooks: hooks)
        return RedisClient(pool: pool)
    }

    /// Sends one command (binary safe). An error reply throws `RedisError` with `code == .errorReply`.
    public func command(_ args: [[UInt8]]) async throws -> RedisValue {
        Self.commandsTotal.increment()
        do {
            return try Self.check(try await send(args))
        } catch {
            Self.errorsTotal.increment()
            throw error
        }
    }

    /// Sends one command given as UTF-8 strings.
    public func command(_ args: String...) async throws -> RedisValue {
        try await command(args.map { Array($0.utf8) })
    }

    /// GET: the value, or nil when the key is absent.
    public func get(_ key: String) async throws -> [UInt8]? {
        switch try await command([Array("GET".utf8), Array(key.utf8)]) {
        case .null: return nil
        case .string(let bytes): return bytes
        default: throw RedisError(code: .unexpectedReply, message: "GET")
        }
    }

    /// SET with an optional `PX` TTL (whole milliseconds, rounded up) and `NX`; false when NX prevented the write.
    @discardableResult
    public func set(
        _ key: String, _ value: [UInt8], ttl: Duration? = nil, onlyIfAbsent: Bool = false
    ) async throws -> Bool {
        var args = [Array("SET".utf8), Array(key.utf8), value]
        if let ttl { args += [Array("PX".utf8), Array(String(try Self.milliseconds(ttl)).utf8)] }
        if onlyIfAbsent { args.append(Array("NX".utf8)) }
        switch try await command(args) {
        case .status: return true
        case .null: return false
        default: throw RedisError(code: .unexpectedReply, message: "SET")
        }
    }

    /// DEL: how many of `keys` existed.
    @discardableResult
    public func delete(_ keys: String...) async throws -> Int {
        guard !keys.isEmpty else { return 0 }
        return Int(try await integer([Array("DEL".utf8)] + keys.map { Array($0.utf8) }))
    }

    /// INCR: the value after the increment.
    public func incr(_ key: String) async throws -> Int64 {
        try await integer([Array("INCR".utf8), Array(key.utf8)])
    }

    /// PEXPIRE: false when the key does not exist.
    public func pexpire(_ key: String, _ ttl: Duration) async throws -> Bool {
        try await integer([Array("PEXPIRE".utf8), Array(key.utf8), Array(String(try Self.milliseconds(ttl)).utf8)]) == 1
    }

    /// Runs a Lua script by its SHA-1 (EVALSHA), falling back to EVAL (which caches it server-side) on NOSCRIPT.
    public func eval(_ script: String, keys: [String], args: [String]) async throws -> RedisValue {
        Self.commandsTotal.increment()
        do {
            let sha = scripts.withLock { cache in
                if let sha = cache[script] { return sha }
                let sha = Digest.hex(Digest.sha1(Array(script.utf8)))
                cache[script] = sha
                return sha
            }
            let tail = [Array(String(keys.count).utf8)] + keys.map { Array($0.utf8) } + args.map { Array($0.utf8) }
            let reply = try await send([Array("EVALSHA".utf8), Array(sha.utf8)] + tail)
            if case .error(let text) = reply, text.hasPrefix("NOSCRIPT") {
                return try Self.check(try await send([Array("EVAL".utf8), Array(script.utf8)] + tail))
            }
            return try Self.check(reply)
        } catch {
            Self.errorsTotal.increment()
            throw error
        }
    }

    /// A fixed-window counter, atomically in Lua: INCR, and PEXPIRE `window` when the key is new (or lost its TTL).
    /// Returns the count after this hit and the milliseconds until the window resets.
    public func fixedWindowHit(key: String, window: Duration) async throws -> (count: Int64, resetInMs: Int64) {
        let ms = try Self.milliseconds(window)
        let reply = try await eval(Self.fixedWindowScript, keys: [key], args: [String(ms)])
        guard let values = reply.array, values.count == 2, let count = values[0].integer, let reset = values[1].integer
        else {
            throw RedisError(code: .unexpectedReply, message: "fixed window script")
        }
        return (count, reset)
    }

    /// Fails waiters and closes idle connections; connections in use close when their command ends.
    public func close() async {
        await pool.close()
    }

    private func integer(_ args: [[UInt8]]) async throws -> Int64 {
        guard case .integer(let value) = try await command(args) else {
            throw RedisError(code: .unexpectedReply, message: "expected an integer reply")
        }
        return value
    }

    /// One command on a pooled connection; error replies are returned, not thrown.
    private func send(_ args: [[UInt8]]) async throws -> RedisValue {
        guard let name = args.first else { throw RedisError(code: .invalidArgument, message: "empty command") }
        // A client span named by the command only (`GET`, `EVALSHA`): never keys or values.
        let command = String(decoding: name.prefix(24), as: UTF8.self).uppercased()
        return try await Tracing.withChildSpan(
            command,
            attributes: [Attribute("db.system.name", "redis"), Attribute("db.operation.name", .string(command))]
        ) { _ in try await sendUntraced(args) }
    }

    private func sendUntraced(_ args: [[UInt8]]) async throws -> RedisValue {
        let connection = try await pool.acquire()
        do {
            let value = try await connection.send(args)
            pool.release(connection, reusable: !connection.isBroken)
            return value
        } catch {
            pool.release(connection, reusable: !connection.isBroken)
            throw error
        }
    }

    private static func check(_ value: RedisValue) throws -> RedisValue {
        if case .error(let text) = value { throw RedisError(reply: text) }
        return value
    }

    /// Whole milliseconds, rounded up; at least 1.
    static func milliseconds(_ duration: Duration) throws -> Int64 {
        let (seconds, attoseconds) = duration.components
        guard duration > .zero else { throw RedisError(code: .invalidArgument, message: "TTL must be positive") }
        let subMillis = attoseconds % 1_000_000_000_000_000
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000 + (subMillis > 0 ? 1 : 0)
    }
}
