import Dispatch
import Foundation
import Synchronization

/// Runs blocking `body` on a new dedicated thread (never on the cooperative pool) and returns its result.
/// For rare operations (admin requests, flush, committed-offset queries); long-lived loops own their thread.
package func onDedicatedThread<T: Sendable, E: Error>(
    _ name: String, _ body: @escaping @Sendable () throws(E) -> T
) async throws(E) -> T {
    let result: Result<T, E> = await withCheckedContinuation { continuation in
        startThread(name) {
            continuation.resume(returning: Result(catching: body))
        }
    }
    return try result.get()
}

/// Starts a dedicated thread (marked, so `DedicatedThread.isCurrent` is true on it).
func startThread(_ name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread {
        Thread.current.threadDictionary[DedicatedThread.key] = true
        body()
    }
    thread.name = name
    thread.start()
}

/// Whether the calling thread is one of ours (`startThread`, `onDedicatedThread`): a blocking librdkafka call
/// may run there, while on any other thread (the cooperative pool) it must not.
enum DedicatedThread {
    static let key = "mapvest.kafka.dedicated-thread"

    static var isCurrent: Bool { Thread.current.threadDictionary[key] as? Bool == true }
}

/// A one-shot event any number of tasks can await; firing it twice is harmless.
package final class OneShotSignal: Sendable {
    private struct State {
        var fired = false
        var nextId = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }
    private let state = Mutex(State())

    package init() {}

    package var isFired: Bool { state.withLock { $0.fired } }

    package func fire() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            guard !s.fired else { return [] }
            s.fired = true
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once fired, or early when the waiting task is cancelled (check `isFired`).
    package func wait() async {
        let id = state.withLock { s -> Int in
            s.nextId += 1
            return s.nextId
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { s -> Bool in
                    if s.fired || Task.isCancelled { return true }
                    s.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}

/// Wakes one dedicated thread blocked in `wait(until:)` (a signal before the wait is kept, not lost). Wake-ups
/// may be spurious: the waiter re-checks its state after every return.
final class ThreadWakeup: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let pending = Atomic<Bool>(false)

    func signal() {
        if !pending.exchange(true, ordering: .acquiringAndReleasing) { semaphore.signal() }
    }

    /// Blocks (never call it on the cooperative pool) until signalled or `deadline` passes.
    func wait(until deadline: ContinuousClock.Instant) {
        // Rounded up: a truncated wait would return early and spin on the last sub-millisecond.
        let left = deadline - .now
        let ms = left > .zero ? Int(left.clampedMilliseconds) + 1 : 0
        _ = semaphore.wait(timeout: .now() + .milliseconds(ms))
        _ = pending.exchange(false, ordering: .acquiringAndReleasing)
    }
}

extension Duration {
    /// Whole milliseconds, clamped to `Int32` for C timeouts.
    var clampedMilliseconds: Int32 {
        let ms = components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(ms, 0))
    }
}

extension ContinuousClock.Instant {
    /// Milliseconds left until this instant (0 when passed), for C timeouts.
    var remainingMilliseconds: Int32 {
        let now = ContinuousClock.now
        return self > now ? (self - now).clampedMilliseconds : 0
    }
}
