import CEventWait
import Foundation

/// One answer: when it was sent (seconds into the run), its latency (ms) and status (-1: no answer).
struct Result {
    let sentAt: Double
    let ms: Double
    let status: Int
}

/// What to send and where: a resolved IPv4/IPv6 address and the request's bytes, built once.
struct Target {
    let address: [UInt8]
    let family: Int32
    let request: [UInt8]

    /// Resolves `url` (plain `http://` only) and frames the request: HTTP/1.1, keep-alive, `Content-Length`.
    static func make(url text: String, method: String, headers: [(String, String)], body: [UInt8]?) -> Target? {
        guard let url = URL(string: text), url.scheme == "http", let host = url.host else { return nil }
        let port = url.port ?? 80
        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?" + query }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"

        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let info = found, let address = info.pointee.ai_addr
        else { return nil }
        defer { freeaddrinfo(found) }
        let bytes = Array(UnsafeRawBufferPointer(start: address, count: Int(info.pointee.ai_addrlen)))
        return Target(address: bytes, family: info.pointee.ai_family, request: Array(head.utf8) + (body ?? []))
    }
}

/// An open-loop HTTP/1.1 load generator on one thread: sends request `n` at `n / rate` seconds whatever the
/// answers so far, on a pool of keep-alive connections that grows when every connection is busy, and sleeps in
/// epoll (`CEventWait`) until the next send is due or a socket is ready. A request costs a `send` and a `recv` or
/// two, so the generator takes little of the cores it shares with the system under test.
struct OpenLoop {
    let target: Target
    let rate: Double
    let total: Int
    let timeout: Duration

    /// A connection and the request it carries (`request` < 0: idle).
    private final class Connection {
        let fd: Int32
        var connecting = true
        var written = 0
        var request = -1
        var sentAt: Int64 = 0
        var parser = ResponseParser()

        init(fd: Int32) { self.fd = fd }
    }

    /// Runs the whole schedule; returns one result per request and the largest lag behind the schedule (ms).
    func run() -> (results: [Result], maxLagMs: Double) {
        signal(SIGPIPE, SIG_IGN)
        raiseDescriptorLimit()
        let events = event_wait_create()
        guard events >= 0 else { fatalError("epoll_create1: errno \(errno)") }
        defer { Glibc.close(events) }

        let intervalNs = 1e9 / rate
        let timeoutNs = timeout.components.seconds * 1_000_000_000
        var sentAt = [Double](repeating: 0, count: total)
        var latency = [Double](repeating: 0, count: total)
        var status = [Int](repeating: -1, count: total)
        var connections: [Int32: Connection] = [:]
        var idle: [Connection] = []
        var done = 0
        var next = 0
        var maxLag: Int64 = 0
        var lastSweep: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var tags = [UInt64](repeating: 0, count: 256)
        var flags = [UInt32](repeating: 0, count: 256)
        let start = Self.now()

        func watch(_ c: Connection) {
            let writable = c.connecting || (c.request >= 0 && c.written < target.request.count)
            event_wait_watch(events, c.fd, 0, writable ? 1 : 0, UInt64(c.fd))
        }
        func close(_ c: Connection) {
            Glibc.close(c.fd)
            connections[c.fd] = nil
            if c.request < 0, let i = idle.firstIndex(where: { $0 === c }) { idle.remove(at: i) }
        }
        func record(_ request: Int, _ code: Int, at now: Int64, sent: Int64) {
            latency[request] = Double(now - sent) / 1e6
            status[request] = code
            done += 1
        }
        func fail(_ c: Connection, at now: Int64) {
            if c.request >= 0 { record(c.request, -1, at: now, sent: c.sentAt) }
            c.request = -1
            close(c)
        }
        func send(_ c: Connection, at now: Int64) {
            let before = c.written
            while c.written < target.request.count {
                let n = target.request.withUnsafeBytes { bytes in
                    Glibc.send(c.fd, bytes.baseAddress! + c.written, bytes.count - c.written, 0)
                }
                if n < 0 {
                    if errno == EAGAIN || errno == EINTR { break }
                    return fail(c, at: now)
                }
                c.written += n
            }
            // The watch asks for writability only while part of the request is left to send.
            if before == 0 && c.written < target.request.count || c.written == target.request.count && before > 0 {
                watch(c)
            }
        }
        func open() -> Connection? {
            let fd = socket(target.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { return nil }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let rc = target.address.withUnsafeBytes { raw in
                connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
            }
            guard rc == 0 || errno == EINPROGRESS, event_wait_watch(events, fd, 1, 1, UInt64(fd)) == 0 else {
                Glibc.close(fd)
                return nil
            }
            let c = Connection(fd: fd)
            c.connecting = rc != 0
            connections[fd] = c
            return c
        }
        func dispatch(_ request: Int, due: Int64, at now: Int64) {
            maxLag = max(maxLag, now - due)
            sentAt[request] = Double(now - start) / 1e9
            guard let c = idle.popLast() ?? open() else { return record(request, -1, at: now, sent: now) }
            c.request = request
            c.written = 0
            c.sentAt = now
            if !c.connecting { send(c, at: now) }
        }
        func receive(_ c: Connection, at now: Int64) {
            let n = buffer.withUnsafeMutableBytes { recv(c.fd, $0.baseAddress, $0.count, 0) }
            if n < 0, errno == EAGAIN || errno == EINTR { return }
            guard n > 0, c.request >= 0 else {
                if n == 0, c.request >= 0, c.parser.endsAtClose, case .complete(let code, _) = c.parser.finishAtClose()
                {
                    record(c.request, code, at: now, sent: c.sentAt)
                    c.request = -1
                }
                return fail(c, at: now)
            }
            let outcome = buffer.withUnsafeBytes { c.parser.feed(UnsafeRawBufferPointer(rebasing: $0[..<n])).outcome }
            switch outcome {
            case .incomplete: return
            case .malformed: return fail(c, at: now)
            case .complete(let code, let keepAlive):
                record(c.request, code, at: now, sent: c.sentAt)
                c.request = -1
                if keepAlive && c.written == target.request.count { idle.append(c) } else { close(c) }
            }
        }

        while done < total {
            var now = Self.now()
            while next < total {
                let due = start + Int64(Double(next) * intervalNs)
                guard due <= now else { break }
                dispatch(next, due: due, at: now)
                next += 1
            }
            if now - lastSweep > 250_000_000 {
                lastSweep = now
                for c in Array(connections.values) where c.request >= 0 && now - c.sentAt > timeoutNs {
                    fail(c, at: now)
                }
            }
            let wait = next < total ? max(0, start + Int64(Double(next) * intervalNs) - now) : Int64(100_000_000)
            let ready = event_wait(events, &tags, &flags, Int32(tags.count), wait)
            guard ready > 0 else { continue }
            now = Self.now()
            for i in 0..<Int(ready) {
                guard let c = connections[Int32(truncatingIfNeeded: tags[i])] else { continue }
                let flag = flags[i]
                if c.connecting {
                    var error: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &error, &length)
                    guard error == 0, flag & UInt32(EVENT_WAIT_WRITABLE) != 0 else {
                        fail(c, at: now)
                        continue
                    }
                    c.connecting = false
                    if c.request >= 0 { send(c, at: now) }
                    if connections[c.fd] === c { watch(c) }
                    continue
                }
                if flag & UInt32(EVENT_WAIT_WRITABLE) != 0, c.request >= 0 {
                    send(c, at: now)
                    guard connections[c.fd] === c else { continue }
                }
                if flag & UInt32(EVENT_WAIT_READABLE | EVENT_WAIT_CLOSED) != 0 { receive(c, at: now) }
            }
        }
        for c in connections.values { Glibc.close(c.fd) }
        let results = (0..<total).map { Result(sentAt: sentAt[$0], ms: latency[$0], status: status[$0]) }
        return (results, Double(maxLag) / 1e6)
    }

    private static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// Lifts the soft limit on open files to the hard one: an open loop may hold one connection per slow request.
    private func raiseDescriptorLimit() {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0 else { return }
        limit.rlim_cur = limit.rlim_max
        setrlimit(resource, &limit)
    }
}
