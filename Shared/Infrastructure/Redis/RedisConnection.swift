import CHiredis
import Dispatch
import Foundation
import Synchronization

/// Where and how to connect, parsed from `redis://[[user]:password@]host[:port][/db]`.
struct RedisEndpoint: Sendable {
    var host: String
    var port: Int
    var username: String?
    var password: String?
    var database: Int

    init(url: String) throws {
        guard let components = URLComponents(string: url), components.scheme?.lowercased() == "redis" else {
            throw RedisError(code: .invalidArgument, message: "expected redis://[[user]:password@]host[:port][/db]")
        }
        host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        port = components.port ?? 6379
        username = components.user.flatMap { $0.isEmpty ? nil : $0 }
        password = components.password.flatMap { $0.isEmpty ? nil : $0 }
        let path = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        if path.isEmpty {
            database = 0
        } else if let db = Int(path), db >= 0 {
            database = db
        } else {
            throw RedisError(code: .invalidArgument, message: "the URL path must be a database number")
        }
        guard (1...65535).contains(port) else { throw RedisError(code: .invalidArgument, message: "bad port") }
    }
}

/// Owns one `redisContext`. Used only on the owning connection's serial queue; `deinit` runs when nothing else
/// holds it.
final class RedisContextHandle: @unchecked Sendable {
    private(set) var raw: UnsafeMutablePointer<redisContext>?
    /// The socket, fixed for the context's lifetime.
    let socket: Int32

    init(raw: UnsafeMutablePointer<redisContext>) {
        self.raw = raw
        self.socket = raw.pointee.fd
    }

    func free() {
        if let raw {
            redisFree(raw)
            self.raw = nil
        }
    }

    deinit { free() }
}

/// One Redis connection, used by one caller at a time. Blocking hiredis calls run on its own serial dispatch queue,
/// never on the cooperative pool; the socket timeout bounds every call. After an I/O error or timeout the connection
/// is marked broken (a late reply would desynchronize it) and its pool discards it.
final class RedisConnection: Sendable {
    private let handle: RedisContextHandle
    private let queue: DispatchQueue
    private let broken = Atomic<Bool>(false)

    private init(handle: RedisContextHandle, queue: DispatchQueue) {
        self.handle = handle
        self.queue = queue
    }

    var isBroken: Bool { broken.load(ordering: .acquiring) }

    /// Connects within `timeout`, sets it as the socket timeout for every later call, then runs AUTH and SELECT.
    static func make(_ endpoint: RedisEndpoint, timeout: Duration) async throws -> RedisConnection {
        let queue = DispatchQueue(label: "mapvest.redis.connection")
        let handle: RedisContextHandle = try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try open(endpoint, timeout: timeout) }) }
        }
        return RedisConnection(handle: handle, queue: queue)
    }

    private static func open(_ endpoint: RedisEndpoint, timeout: Duration) throws -> RedisContextHandle {
        let (seconds, attoseconds) = timeout.components
        let micros = max(1000, seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        let tv = timeval(tv_sec: Int(micros / 1_000_000), tv_usec: Int(micros % 1_000_000))
        guard let context = redisConnectWithTimeout(endpoint.host, Int32(endpoint.port), tv) else {
            throw RedisError(code: .connectionFailed, message: "cannot allocate a redis context")
        }
        if context.pointee.err != 0 {
            let message = String(cString: mv_redis_errstr(context))
            redisFree(context)
            throw RedisError(code: .connectionFailed, message: message)
        }
        let handle = RedisContextHandle(raw: context)
        guard redisSetTimeout(context, tv) == REDIS_OK else {
            throw RedisError(code: .connectionFailed, message: "cannot set the socket timeout")
        }
        _ = redisEnableKeepAlive(context)
        if let password = endpoint.password {
            var auth = [Array("AUTH".utf8)]
            if let username = endpoint.username { auth.append(Array(username.utf8)) }
            auth.append(Array(password.utf8))
            if case .error(let text) = try execute(context, auth) { throw RedisError(setupReply: text) }
        }
        if endpoint.database != 0,
            case .error(let text) = try execute(context, [Array("SELECT".utf8), Array(String(endpoint.database).utf8)])
        {
            throw RedisError(setupReply: text)
        }
        return handle
    }

    /// Sends one command (`redisCommandArgv`, binary safe) and returns its reply; error replies come back as `.error`.
    func send(_ args: [[UInt8]]) async throws -> RedisValue {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { [self] in
                continuation.resume(
                    with: Result {
                        guard let context = handle.raw, !isBroken else {
                            throw RedisError(code: .connectionClosed, message: "connection is closed")
                        }
                        do {
                            return try Self.execute(context, args)
                        } catch {
                            broken.store(true, ordering: .releasing)
                            throw error
                        }
                    })
            }
        }
    }

    /// Whether an idle connection is still fine: Redis sends nothing unasked, so a readable socket means EOF or
    /// garbage. A non-blocking `poll` with a zero timeout; no hiredis call.
    func isUsableWhenIdle() -> Bool {
        guard !isBroken else { return false }
        var pfd = pollfd(fd: handle.socket, events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, 0) == 0
    }

    func close() async {
        broken.store(true, ordering: .releasing)
        let handle = self.handle
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                handle.free()
                continuation.resume()
            }
        }
    }

    private static func execute(_ context: UnsafeMutablePointer<redisContext>, _ args: [[UInt8]]) throws -> RedisValue {
        guard !args.isEmpty, args.count <= Int32.max else {
            throw RedisError(code: .invalidArgument, message: "a command needs at least one argument")
        }
        // One contiguous buffer holds every argument; argv points into it.
        var flat: [UInt8] = []
        flat.reserveCapacity(args.reduce(1) { $0 + $1.count })
        var offsets: [Int] = []
        var lengths: [Int] = []
        for arg in args {
            offsets.append(flat.count)
            lengths.append(arg.count)
            flat.append(contentsOf: arg)
        }
        flat.append(0)  // never empty, so the base address exists
        let reply = flat.withUnsafeBufferPointer { buffer -> UnsafeMutableRawPointer? in
            guard let base = buffer.baseAddress else { return nil }
            var argv: [UnsafePointer<CChar>?] = offsets.map {
                UnsafeRawPointer(base + $0).assumingMemoryBound(to: CChar.self)
            }
            return redisCommandArgv(context, Int32(args.count), &argv, lengths)
        }
        guard let reply else {
            let savedErrno = errno
            let message = String(cString: mv_redis_errstr(context))
            let timedOut =
                savedErrno == EAGAIN || savedErrno == EWOULDBLOCK || message == String(cString: strerror(EAGAIN))
            if context.pointee.err == REDIS_ERR_IO, timedOut {
                throw RedisError(code: .timeout, message: message)
            }
            throw RedisError(code: .connectionClosed, message: message)
        }
        let typed = reply.assumingMemoryBound(to: redisReply.self)
        defer { freeReplyObject(reply) }
        return value(of: typed)
    }

    private static func value(of reply: UnsafeMutablePointer<redisReply>) -> RedisValue {
        let r = reply.pointee
        func text() -> [UInt8] {
            guard let str = r.str else { return [] }
            return Array(UnsafeRawBufferPointer(start: str, count: r.len))
        }
        switch r.type {
        case REDIS_REPLY_STRING: return .string(text())
        case REDIS_REPLY_INTEGER: return .integer(Int64(r.integer))
        case REDIS_REPLY_NIL: return .null
        case REDIS_REPLY_STATUS: return .status(String(decoding: text(), as: UTF8.self))
        case REDIS_REPLY_ERROR: return .error(String(decoding: text(), as: UTF8.self))
        case REDIS_REPLY_ARRAY:
            return .array((0..<r.elements).map { i in mv_redis_reply_element(reply, i).map(value(of:)) ?? .null })
        default: return .null
        }
    }
}
