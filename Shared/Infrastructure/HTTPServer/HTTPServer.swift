import Runtime
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd: poll(2) polling threads, every request suspended while its
/// `HTTPHandler` runs as a task (no thread is held while a handler awaits).
///
/// Lifecycle: `start()` binds (then `port` is real); `run()` starts if needed and returns after `shutdown()`,
/// which stops accepting, lets in-flight requests finish for `shutdownGracePeriod`, answers the rest 503 and stops.
public final class HTTPServer: Service {
    public let configuration: HTTPServerConfiguration
    public var name: String { configuration.name }

    private let core: ServerCore
    private let logger: Logger

    private enum State {
        case idle
        case running(MHDDaemon)
        case stopping
        case stopped
    }
    private let state = Mutex(State.idle)
    private let stoppedStream: AsyncStream<Void>
    private let stoppedContinuation: AsyncStream<Void>.Continuation

    public init(
        configuration: HTTPServerConfiguration, handler: some HTTPHandler, logger: Logger,
        metrics: MetricsRegistry = .shared
    ) {
        self.configuration = configuration
        self.logger = logger.with([LogKeys.httpServer: .string(configuration.name)])
        self.core = ServerCore(
            handler: ErasedHandler(handler), logger: self.logger, metrics: metrics,
            oversizeDiscardLimit: configuration.oversizeDiscardLimit, smallBodyLimit: configuration.smallBodyLimit,
            headDeadline: HeadDeadline(limit: configuration.headTimeout, idle: configuration.connectionTimeout))
        (stoppedStream, stoppedContinuation) = AsyncStream.makeStream(of: Void.self)
    }

    /// Binds and starts the polling threads; no-op when already started. After this, `port` is the real port.
    public func start() throws {
        let port = try state.withLock { state throws(HTTPServerError) -> Int? in
            guard case .idle = state else { return nil }
            let daemon = try MHDDaemon.make(configuration: configuration, core: core)
            state = .running(daemon)
            return daemon.port
        }
        if let port {
            logger.info(
                "http server listening", [LogKeys.httpHost: .string(configuration.host), LogKeys.httpPort: .int(port)])
        }
    }

    /// The bound port once started (0 before `start()` and after shutdown).
    public var port: Int {
        state.withLock { s in
            if case .running(let daemon) = s { return daemon.port }
            return 0
        }
    }

    /// Requests received and not yet completed.
    public var activeRequests: Int { core.activeRequests.load(ordering: .relaxed) }

    public func run() async throws {
        let stopped = state.withLock { s -> Bool in
            if case .stopped = s { return true }
            return false
        }
        if stopped { return }
        try start()
        for await _ in stoppedStream {}
    }

    public func shutdown() async {
        let daemon = state.withLock { s -> MHDDaemon? in
            switch s {
            case .running(let daemon):
                s = .stopping
                return daemon
            case .idle:
                s = .stopped
                return nil
            case .stopping, .stopped:
                return nil
            }
        }
        guard let daemon else {
            if case .stopped = state.withLock({ $0 }) { stoppedContinuation.finish() }
            return
        }
        logger.info("http server draining", [LogKeys.httpActive: .int(activeRequests)])
        core.draining.store(true, ordering: .relaxed)
        daemon.quiesce()
        await drain(daemon, until: ContinuousClock.now + configuration.shutdownGracePeriod)
        if activeRequests > 0 {
            logger.warning("http shutdown grace period passed", [LogKeys.httpActive: .int(activeRequests)])
            core.forceResumeAll()
            let forcedDeadline = ContinuousClock.now + .milliseconds(500)
            while activeRequests > 0 && ContinuousClock.now < forcedDeadline {
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        await daemon.stopOffPool()
        state.withLock { $0 = .stopped }
        stoppedContinuation.finish()
        logger.info("http server stopped")
    }

    /// How long the drain waits, once nothing is in flight, for a request already sent on a keep-alive connection.
    static let drainQuietPeriod: Duration = .milliseconds(200)

    /// Serves until every connection has closed (each answer while draining says `Connection: close`), or — when
    /// idle keep-alive connections remain — until nothing is in flight and no request has arrived for
    /// `drainQuietPeriod`, or until `deadline`. A request that reached a connection is answered, never reset.
    private func drain(_ daemon: MHDDaemon, until deadline: ContinuousClock.Instant) async {
        var seen = core.requestsStarted.load(ordering: .relaxed)
        var quietSince = ContinuousClock.now
        while ContinuousClock.now < deadline {
            let started = core.requestsStarted.load(ordering: .relaxed)
            if started != seen {
                seen = started
                quietSince = ContinuousClock.now
            }
            if activeRequests == 0
                && (daemon.openConnections == 0 || ContinuousClock.now - quietSince >= Self.drainQuietPeriod)
            {
                return
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}
