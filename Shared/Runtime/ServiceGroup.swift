import Dispatch
import Foundation
import Synchronization

/// A long-running part of a binary: `run()` works until `shutdown()` asks it to stop intake and finish.
public protocol Service: Sendable {
    var name: String { get }
    func run() async throws
    /// Stop intake, drain in-flight work, release resources. `run()` returns after this.
    func shutdown() async
}

/// Whether a binary accepts work. `/readyz` reports it; it turns false while draining, and while any added
/// dependency check fails (e.g. no Kafka broker reachable).
public final class Readiness: Sendable {
    private let ready = Atomic<Bool>(false)
    private let checks = Mutex<[@Sendable () -> Bool]>([])
    public init() {}
    public var isReady: Bool { ready.load(ordering: .acquiring) && checks.withLock { $0.allSatisfy { $0() } } }
    public func set(_ value: Bool) { ready.store(value, ordering: .releasing) }
    /// Adds a non-blocking check that must pass for the binary to be ready.
    public func require(_ check: @escaping @Sendable () -> Bool) { checks.withLock { $0.append(check) } }
}

/// Starts services in order; on SIGTERM/SIGINT (or when one fails) stops them in reverse order,
/// each within the shutdown deadline.
public final class ServiceGroup: Sendable {
    private let services: [any Service]
    private let logger: Logger
    private let readiness: Readiness
    private let shutdownTimeout: Duration
    private let trigger: AsyncStream<String>.Continuation
    private let triggers: AsyncStream<String>

    public init(
        services: [any Service], readiness: Readiness, logger: Logger, shutdownTimeout: Duration = .seconds(25)
    ) {
        self.services = services
        self.logger = logger
        self.readiness = readiness
        self.shutdownTimeout = shutdownTimeout
        (triggers, trigger) = AsyncStream.makeStream(of: String.self)
    }

    /// Asks the group to shut down (as a signal would).
    public func triggerShutdown(reason: String) { trigger.yield(reason) }

    public func run() async throws {
        let sources = [SIGTERM, SIGINT].map { sig -> DispatchSourceSignal in
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            let trigger = self.trigger
            source.setEventHandler { trigger.yield(sig == SIGTERM ? "SIGTERM" : "SIGINT") }
            source.resume()
            return source
        }
        defer { sources.forEach { $0.cancel() } }

        var tasks: [Task<Void, any Error>] = []
        for service in services {
            let trigger = self.trigger
            let logger = self.logger
            tasks.append(
                Task {
                    do {
                        try await service.run()
                    } catch {
                        logger.error("service failed", ["service": .string(service.name), "error": "\(error)"])
                        trigger.yield("\(service.name) failed")
                        throw error
                    }
                })
        }
        readiness.set(true)
        logger.info("started", ["services": .string(services.map(\.name).joined(separator: ","))])

        var reason = "stream ended"
        for await r in triggers {
            reason = r
            break
        }
        readiness.set(false)
        logger.info("shutting down", ["reason": .string(reason)])
        var firstError: (any Error)?
        for (service, task) in zip(services, tasks).reversed() {
            let finished = await withDeadline(shutdownTimeout) {
                await service.shutdown()
                return await task.result
            }
            switch finished {
            case .none:
                logger.error("shutdown deadline passed", ["service": .string(service.name)])
                task.cancel()
            case .some(.failure(let error)):
                firstError = firstError ?? error
            case .some(.success):
                break
            }
        }
        logger.info("stopped")
        if let firstError { throw firstError }
    }
}

/// Runs `work`; returns nil if `timeout` passes first (the work is then cancelled).
public func withDeadline<T: Sendable>(
    _ timeout: Duration, _ work: @escaping @Sendable () async -> T
) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await work() }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
