import CMicroHTTPD
import Foundation
import Runtime
import Synchronization

/// Owns one `MHD_Daemon`; stopping it is the only way it is freed. The owner stops it (`HTTPServer.shutdown` calls
/// `stopOffPool()`); `deinit` never blocks: a daemon dropped while still running is stopped on a dedicated thread.
///
/// Holds `core` strongly because the C callbacks receive it unretained: the core must outlive the daemon.
final class MHDDaemon: @unchecked Sendable {
    private let raw: OpaquePointer
    private let core: ServerCore
    /// The bound port (the real one when the configuration asked for 0).
    let port: Int

    private struct State {
        var stopped = false
        var quiesced = false
        /// The listening socket `MHD_quiesce_daemon` handed back: shut down at once, closed only after MHD's threads
        /// have stopped (a thread that has not yet seen the quiesce may still poll it).
        var releasedListenSocket: Int32 = -1
    }
    private let state = Mutex(State())

    private init(raw: OpaquePointer, core: ServerCore, port: Int) {
        self.raw = raw
        self.core = core
        self.port = port
    }

    static func make(configuration c: HTTPServerConfiguration, core: ServerCore) throws(HTTPServerError) -> MHDDaemon {
        guard (0...65535).contains(c.port) else { throw HTTPServerError(message: "port \(c.port) out of range") }
        let host = c.host == "localhost" ? "127.0.0.1" : c.host
        let ipv6 = host.contains(":")
        // poll(2), never epoll: libmicrohttpd 0.9.75's `MHD_quiesce_daemon` races its own epoll loop over removing the
        // listening socket and aborts the process when it loses (seen in CI: "Failed to remove listen FD from epoll
        // set"). The poll path signals the quiesce through the inter-thread channel instead.
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        if MHD_is_feature_supported(.FEATURE_POLL) == .YES { flags |= MHD_USE_POLL.rawValue }
        if ipv6 { flags |= (host == "::" ? MHD_USE_DUAL_STACK : MHD_USE_IPv6).rawValue }

        var storage = sockaddr_storage()
        let parsed = withUnsafeMutableBytes(of: &storage) { buffer -> Bool in
            if ipv6 {
                var address = sockaddr_in6()
                address.sin6_family = sa_family_t(AF_INET6)
                address.sin6_port = in_port_t(UInt16(c.port)).bigEndian
                guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { return false }
                withUnsafeBytes(of: &address) { buffer.copyMemory(from: $0) }
            } else {
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = in_port_t(UInt16(c.port)).bigEndian
                guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return false }
                withUnsafeBytes(of: &address) { buffer.copyMemory(from: $0) }
            }
            return true
        }
        guard parsed else { throw HTTPServerError(message: "host \(c.host) is not an IP address") }

        let timeout = c.connectionTimeout.components
        let timeoutSeconds = max(1, timeout.seconds + (timeout.attoseconds > 0 ? 1 : 0))
        let cls = Unmanaged.passUnretained(core).toOpaque()
        let daemon = withUnsafePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                mapvest_mhd_start_daemon(
                    UInt32(flags), address, accessHandlerCallback, cls, uriLogCallback, cls,
                    requestCompletedCallback, cls, connectionNotifyCallback, cls, UInt32(clamping: max(1, c.threads)),
                    UInt32(clamping: max(1, c.connectionLimit)), UInt32(clamping: max(0, c.perClientConnectionLimit)),
                    UInt32(clamping: timeoutSeconds), max(8 << 10, c.connectionMemoryLimit))
            }
        }
        guard let daemon else {
            throw HTTPServerError(message: "cannot listen on \(c.host):\(c.port) (address in use or invalid options)")
        }
        core.headDeadline.start()
        return MHDDaemon(raw: daemon, core: core, port: Int(mapvest_mhd_bind_port(daemon)))
    }

    /// Stops accepting: the listening socket leaves the event loop and is shut down at once, so new connections are
    /// refused (and can go to another replica) instead of waiting in the backlog to be reset when the daemon stops.
    /// The descriptor itself stays open until `stop()`, so MHD's threads never see its number reused.
    func quiesce() {
        state.withLock { s in
            guard !s.stopped, !s.quiesced else { return }
            s.quiesced = true
            let socket = MHD_quiesce_daemon(raw)
            guard socket >= 0 else { return }
            shutdown(socket, Int32(SHUT_RDWR))
            s.releasedListenSocket = socket
        }
    }

    /// Connections open now (idle keep-alive ones included).
    var openConnections: Int { Int(mapvest_mhd_current_connections(raw)) }

    /// Answers whatever is still suspended, stops the polling threads and closes every connection. Blocking.
    func stop() {
        let stopping = state.withLock { s -> Int32? in
            guard !s.stopped else { return nil }
            s.stopped = true
            return s.releasedListenSocket
        }
        guard let listenSocket = stopping else { return }
        Self.halt(raw, core: core, releasedListenSocket: listenSocket)
    }

    /// Answers whatever is still suspended, lets MHD's threads deliver those answers (a resume is only a flag until
    /// they run), then stops the daemon, joining its threads. Blocking.
    private static func halt(_ raw: OpaquePointer, core: ServerCore, releasedListenSocket: Int32) {
        core.forceResumeAll()
        var waited = 0
        while core.activeRequests.load(ordering: .relaxed) > 0 && waited < 200 {
            usleep(1000)
            waited += 1
        }
        MHD_stop_daemon(raw)
        core.headDeadline.stop()
        if releasedListenSocket >= 0 { close(releasedListenSocket) }
    }

    /// `stop()` on a dedicated thread: joining MHD's threads never blocks the cooperative pool.
    func stopOffPool() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread { [self] in
                self.stop()
                continuation.resume()
            }
            thread.name = "mhd-stop"
            thread.start()
        }
    }

    deinit {
        let (running, listenSocket) = state.withLock { (!$0.stopped, $0.releasedListenSocket) }
        guard running else { return }
        // Dropped without `stop()`: joining MHD's threads here could block whatever thread drops the last reference
        // (a cooperative one), so the stop runs on its own thread, which keeps `core` alive until MHD is done.
        let address = Int(bitPattern: raw)  // a plain integer crosses to the thread
        let core = self.core
        core.logger.warning("http daemon dropped without stop; stopping it on a dedicated thread")
        let thread = Thread {
            if let raw = OpaquePointer(bitPattern: address) {
                Self.halt(raw, core: core, releasedListenSocket: listenSocket)
            }
        }
        thread.name = "mhd-stop"
        thread.start()
    }
}
