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

/// Runs services as children of one task group, like swift-service-lifecycle's group: they start in order; the
/// first of SIGTERM, SIGINT, `triggerShutdown`, or a service whose `run()` returns or throws on its own starts the
/// shutdown. Readiness turns false, then each service is asked to stop in reverse order and awaited until its
/// `run()` has returned, all within one total deadline. A service that ended on its own makes `run()` throw, so the
/// binary exits non-zero; when the deadline passes, the remaining children are cancelled and, if they still do not
/// return, `onStuck` runs (by default the process exits: an orchestrator would kill it anyway).
public final class ServiceGroup: Sendable {
    private let services: [any Service]
    private let logger: Logger
    private let readiness: Readiness
    private let shutdownTimeout: Duration
    private let onStuck: @Sendable () -> Void
    private let trigger: AsyncStream<Cause>.Continuation
    private let triggers: AsyncStream<Cause>

    /// Why the group is stopping.
    private enum Cause: Sendable {
        case requested(String)
        case serviceEnded(name: String, error: (any Error)?)

        var description: String {
            switch self {
            case .requested(let reason): reason
            case .serviceEnded(let name, nil): "\(name) returned on its own"
            case .serviceEnded(let name, .some): "\(name) failed"
            }
        }
    }

    public init(
        services: [any Service], readiness: Readiness, logger: Logger, shutdownTimeout: Duration = .seconds(25),
        onStuck: @escaping @Sendable () -> Void = { exit(EXIT_FAILURE) }
    ) {
        self.services = services
        self.logger = logger
        self.readiness = readiness
        self.shutdownTimeout = shutdownTimeout
        self.onStuck = onStuck
        (triggers, trigger) = AsyncStream.makeStream(of: Cause.self)
    }

    /// Asks the group to shut down (as a signal would).
    public func triggerShutdown(reason: String) { trigger.yield(.requested(reason)) }

    public func run() async throws {
        let sources = [SIGTERM, SIGINT].map { sig -> DispatchSourceSignal in
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            let trigger = self.trigger
            source.setEventHandler { trigger.yield(.requested(sig == SIGTERM ? "SIGTERM" : "SIGINT")) }
            source.resume()
            return source
        }
        defer { sources.forEach { $0.cancel() } }

        let ended = services.map { _ in ServiceEnd() }
        let failure: (any Error)? = await withTaskGroup(of: Void.self) { group in
            for (service, end) in zip(services, ended) {
                let trigger = self.trigger
                group.addTask {
                    do {
                        try await service.run()
                        end.record(nil)
                        trigger.yield(.serviceEnded(name: service.name, error: nil))
                    } catch {
                        end.record(error)
                        trigger.yield(.serviceEnded(name: service.name, error: error))
                    }
                }
            }
            readiness.set(true)
            logger.info("started", [LogKeys.services: .string(services.map(\.name).joined(separator: ","))])

            var cause = Cause.requested("trigger stream ended")
            for await first in triggers {
                cause = first
                break
            }
            readiness.set(false)
            if case .serviceEnded(let name, let error) = cause {
                logger.error(
                    "service ended on its own",
                    [LogKeys.service: .string(name), LogKeys.error: "\(error.map { "\($0)" } ?? "none")"])
            }
            logger.info("shutting down", [LogKeys.reason: .string(cause.description)])

            let deadline = ContinuousClock.now + shutdownTimeout
            for (service, end) in zip(services, ended).reversed() {
                let stopped: Bool? = await withTimeLimit(max(.zero, deadline - .now)) {
                    await service.shutdown()
                    await end.wait()
                    return true
                }
                if stopped == nil {
                    logger.error("shutdown deadline passed", [LogKeys.service: .string(service.name)])
                    break
                }
            }
            if ended.contains(where: { !$0.hasEnded }) {
                group.cancelAll()
                let returned: Bool? = await withTimeLimit(.seconds(1)) {
                    for end in ended { await end.wait() }
                    return true
                }
                if returned == nil {
                    logger.error("services ignored cancellation after the shutdown deadline; giving up on them")
                    onStuck()
                }
            }
            if case .serviceEnded(let name, let error) = cause {
                return error ?? ServiceGroupError(service: name)
            }
            return ended.lazy.compactMap(\.error).first
        }
        logger.info("stopped")
        if let failure { throw failure }
    }
}

/// A service's `run()` returned while nothing had asked the group to stop.
public struct ServiceGroupError: Error, CustomStringConvertible {
    public let service: String
    public var description: String { "\(service) stopped on its own" }
}

/// How one service's `run()` ended, awaited by the shutdown sequence.
private final class ServiceEnd: Sendable {
    private struct State {
        var ended = false
        var error: (any Error)?
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    var hasEnded: Bool { state.withLock { $0.ended } }
    var error: (any Error)? { state.withLock { $0.error } }

    func record(_ error: (any Error)?) {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.ended = true
            s.error = error
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let ended = state.withLock { s -> Bool in
                if !s.ended { s.waiters.append(continuation) }
                return s.ended
            }
            if ended { continuation.resume() }
        }
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
